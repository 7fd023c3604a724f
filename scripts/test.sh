#!/usr/bin/env bash
# The project's test command: linters, the committed notebooks' hygiene, then the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check .
ruff format --check .
python -m autograder release --check
python -m pytest -n 2 --dist loadfile --durations=10 tests solutions --nbval-lax "$@"
