#!/usr/bin/env bash
# The project's test command: linters and the type checker, the docs, then the test suite (every module's docstring
# examples included: tests/test_docstrings.py; the committed student notebooks are the ones `release` makes from
# the source notebooks: `release --check`, run once, in tests/autograder/test_cli.py).
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check .
ruff format --check .
python -m mypy  # the packages, at the level [tool.mypy] in pyproject.toml sets
# The docs site: a stale link, anchor, snippet, code path or module name fails the build (never add -q: quiet mode
# hides the warnings that --strict counts). Built into a temporary folder, so the checkout stays clean.
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --site-dir "$site"
# Work units for the two workers (which tests share a worker, longest first): tests/conftest.py, worker_group and FIRST.
python -m pytest -n 2 --dist loadgroup --no-loadscope-reorder --durations=25 tests solutions --nbval-lax "$@"
