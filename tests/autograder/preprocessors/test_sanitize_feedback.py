"""The feedback page's exporter: the policy in its head, and its templates compiled once per process."""

import jinja2
import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from autograder.preprocessors.sanitize_feedback import FEEDBACK_POLICY, InertFeedbackExporter


def _compilations(monkeypatch) -> list[str]:
    compiled: list[str] = []
    original = jinja2.Environment.compile

    def counting(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(str(name))
        return original(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    return compiled


def test_a_second_page_compiles_no_template_and_is_the_same(monkeypatch):
    notebook = new_notebook(cells=[new_code_cell("print('hi')")])
    compiled = _compilations(monkeypatch)
    first, _ = InertFeedbackExporter().from_notebook_node(notebook)
    made = len(compiled)
    second, _ = InertFeedbackExporter().from_notebook_node(notebook)  # a new exporter, as nbgrader makes per page
    assert made > 0 and len(compiled) == made
    assert first == second and FEEDBACK_POLICY in first


def test_an_edited_template_is_compiled_again(monkeypatch, tmp_path):
    template = tmp_path / "page.j2"
    template.write_text("first {{ nb.cells | length }}")
    notebook = nbformat.v4.new_notebook(cells=[new_code_cell("1")])
    compiled = _compilations(monkeypatch)
    page, _ = InertFeedbackExporter(template_file=str(template)).from_notebook_node(notebook)
    assert page.endswith("first 1")
    template.write_text("second {{ nb.cells | length }}")
    page, _ = InertFeedbackExporter(template_file=str(template)).from_notebook_node(notebook)
    assert page.endswith("second 1") and compiled.count("page.j2") == 2
