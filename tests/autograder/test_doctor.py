"""The doctor's reading of student cells: IPython syntax made Python, and integrity flags it cannot be talked out of."""

import subprocess
import sys

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import sample_class
from autograder.doctor import python_of, scan_integrity
from tests.mutants.harness import solution_code


def test_ipython_syntax_becomes_pass_on_the_same_lines():
    source = "%time x = 1\ny = !ls\nlen?\n  ?len\nz = 3 % 2\n!= not magic"
    assert python_of(source).split("\n") == ["pass", "pass", "pass", "  pass", "z = 3 % 2", "pass"]
    assert python_of("%%time\nx = 1") == "\nx = 1"  # the body runs
    assert python_of("%%writefile a.txt\nhello\nworld") == "pass\n\n"


def test_lines_inside_brackets_strings_or_after_a_backslash_are_python():
    source = 'x = (a\n     != b)\ns = """\n%not a magic\n"""\nv = 1 + \\\n    % 2\n!echo magic'
    assert python_of(source).split("\n")[:-1] == source.split("\n")[:-1]  # all kept: Black's style, a docstring
    assert python_of(source).split("\n")[-1] == "pass"


def test_a_long_cell_full_of_magics_is_read_in_linear_time():
    # IPython's own translation took minutes of CPU on such a cell (grows with magics times size): the child may
    # spend 30 s of CPU time (RLIMIT_CPU, whatever the machine's load); the wall clock is only a backstop
    code = (
        "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (30, 30))\n"
        "from autograder.doctor import python_of\n"
        "source = '%time 1\\n' * 2000 + 'x = 1\\n' * 200_000\n"
        "print(python_of(source).count('pass'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.stdout.strip() == "2000", done.stderr[-2000:]


def test_a_cell_claiming_to_be_locked_is_still_scanned(course_root):
    source = nbformat.read(course_root / "solutions/01_pair_counts_and_merge/01_pair_counts_and_merge.ipynb", 4)
    meta = {"nbgrader": {"grade_id": "merge", "locked": True, "solution": True, "grade": False}}
    submission = new_notebook(cells=[new_code_cell("import bpe_ref\nmerge = bpe_ref.merge", metadata=meta)])
    assert [p.text for p in scan_integrity(submission, source)] == ["cell 'merge', line 1: imports bpe_ref"]
    given = {"nbgrader": {"grade_id": "together_demo", "locked": True}}  # locked in the source: put back, not scanned
    assert scan_integrity(new_notebook(cells=[new_code_cell("import bpe_ref", metadata=given)]), source) == []


def test_the_notes_list_at_most_max_notes_the_gravest_first(course_root):
    """Each cell with a foreign ``grade_id`` is one problem: thousands of them would reach the formgrader, the
    feedback, grades.csv and the terminal. The notes keep the gravest (a fatal one, the timestamp the late penalty
    uses) and count the rest in one line."""
    import copy

    from autograder import doctor

    assignment = "01_pair_counts_and_merge"
    source = nbformat.read(course_root / "solutions" / assignment / f"{assignment}.ipynb", 4)
    nb = copy.deepcopy(nbformat.read(course_root / "notebooks" / assignment / f"{assignment}.ipynb", 4))
    for index in range(500):
        cell = new_code_cell(f"x{index} = {index}")
        cell.metadata["nbgrader"] = {"grade_id": f"foreign_{index}", "solution": False, "grade": False}
        nb.cells.append(cell)
    found = doctor.repair(nb, source)
    assert len(found) >= 500
    found += [doctor.Problem("timestamp", "timestamp.txt says 2001-01-01: before the release"),
              doctor.Problem("fatal", "the notebook could not be read")]  # fmt: skip
    cell = doctor.report_cell(found)
    noted = doctor.noted_problems(new_notebook(cells=[cell]))
    assert len(noted) == doctor.MAX_NOTES and len(cell.source) < 10_000
    assert [p.kind for p in noted[:2]] == ["fatal", "timestamp"]
    left = len(found) - (doctor.MAX_NOTES - 1)  # every one left out is a repaired cell
    assert noted[-1].text == f"and {left} more problems: {left} repaired"
    forged = new_notebook(cells=[copy.deepcopy(cell)])  # a submission's own notes cell, listing anything
    forged.cells[0].metadata[doctor.REPORT_METADATA]["problems"] = [{"kind": "fatal", "text": "x"}] * 10_000
    assert len(doctor.noted_problems(forged)) == doctor.MAX_NOTES


ASSIGNMENT = "01_pair_counts_and_merge"


def _release(course_root):
    return nbformat.read(course_root / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)


def _with_work(release, cells_done):
    """The release notebook with ``cells_done`` of its solution cells answered."""
    import copy

    from bpe_lab import cells

    nb = copy.deepcopy(release)
    for cell in [c for c in nb.cells if cells.is_solution(c)][:cells_done]:
        cell.source = cell.source.replace("raise NotImplementedError()", "return []")
    return nb


def test_of_several_notebooks_the_one_with_the_most_work_is_graded_and_the_choice_noted(course_root, tmp_path):
    from autograder import doctor

    release = _release(course_root)
    stubs = doctor.release_stubs(release)
    nbformat.write(release, tmp_path / f"{ASSIGNMENT}.ipynb")  # the untouched original, under the expected name
    nbformat.write(_with_work(release, 1), tmp_path / f"{ASSIGNMENT}-Copy1.ipynb")
    nbformat.write(_with_work(release, 2), tmp_path / f"{ASSIGNMENT}-Copy2.ipynb")
    choice = doctor.choose(sorted(tmp_path.iterdir()), f"{ASSIGNMENT}.ipynb", stubs)
    assert choice.path.name == f"{ASSIGNMENT}-Copy2.ipynb" and doctor.work_in(choice.notebook, stubs) == 2
    assert [str(p) for p in choice.problems if p.kind == "choice"] == [
        f"[choice] 3 notebooks handed in: graded '{ASSIGNMENT}-Copy2.ipynb' (work in 2 solution cells), ignored "
        f"'{ASSIGNMENT}.ipynb' (untouched), '{ASSIGNMENT}-Copy1.ipynb' (work in 1 solution cell)"
    ]


def test_ties_go_to_the_expected_name_then_to_the_newest_by_name_order(course_root, tmp_path):
    from autograder import doctor

    release = _release(course_root)
    stubs = doctor.release_stubs(release)
    for name in ("a-Copy9.ipynb", "a-Copy10.ipynb", f"{ASSIGNMENT}.ipynb"):
        nbformat.write(_with_work(release, 1), tmp_path / name)
    paths = sorted(tmp_path.iterdir())
    assert doctor.choose(paths, f"{ASSIGNMENT}.ipynb", stubs).path.name == f"{ASSIGNMENT}.ipynb"
    (tmp_path / f"{ASSIGNMENT}.ipynb").unlink()
    assert doctor.choose(paths[:2], f"{ASSIGNMENT}.ipynb", stubs).path.name == "a-Copy10.ipynb"  # 10 after 9
    (tmp_path / "broken.ipynb").write_text("{")  # unreadable ranks below untouched
    nbformat.write(release, tmp_path / f"{ASSIGNMENT}.ipynb")
    choice = doctor.choose([tmp_path / "broken.ipynb", tmp_path / f"{ASSIGNMENT}.ipynb"], "zz.ipynb", stubs)
    assert choice.path.name == f"{ASSIGNMENT}.ipynb" and "'broken.ipynb' (not readable)" in choice.problems[-1].text


def test_which_cells_are_solutions_is_the_releases_word_not_the_files(course_root, tmp_path):
    """A decoy that flags every cell a solution and edits them all does not outweigh two answered functions."""
    from autograder import doctor

    release = _release(course_root)
    decoy = _with_work(release, 0)
    for cell in decoy.cells:
        cell.metadata.setdefault("nbgrader", {}).update(solution=True, grade_id=f"decoy{id(cell)}")
        cell.source += "\n# edited"
    nbformat.write(decoy, tmp_path / "zz-decoy.ipynb")
    nbformat.write(_with_work(release, 2), tmp_path / f"{ASSIGNMENT}.ipynb")
    choice = doctor.choose(sorted(tmp_path.iterdir()), f"{ASSIGNMENT}.ipynb", doctor.release_stubs(release))
    assert choice.path.name == f"{ASSIGNMENT}.ipynb"


def test_a_folder_of_thousands_of_notebooks_is_read_only_up_to_the_limit(course_root, tmp_path, monkeypatch):
    from autograder import doctor

    release = _release(course_root)
    text = nbformat.writes(release)
    for index in range(doctor.MAX_CANDIDATES + 200):
        (tmp_path / f"decoy-{index}.ipynb").write_text(text)
    read = []
    original = doctor.read
    monkeypatch.setattr(doctor, "read", lambda path, name=None: read.append(path) or original(path, name))
    choice = doctor.choose(sorted(tmp_path.iterdir()), f"{ASSIGNMENT}.ipynb", doctor.release_stubs(release))
    assert len(read) == doctor.MAX_CANDIDATES == len(choice.considered) and len(choice.skipped) == 200
    assert choice.path.name == f"decoy-{doctor.MAX_CANDIDATES + 199}.ipynb"  # the newest by name order
    assert choice.problems[-1].text.startswith(f"200 more notebooks were not read (over the limit of {len(read)}")


def test_a_flag_the_exercise_s_own_solution_raises_is_not_raised_for_its_cell(course_root):
    """06's chunk_counts_file must open its file: every correct submission was flagged for it. The same call in
    another exercise's cell, and anything else in that cell, still are."""
    assignment = "06_training_at_scale"
    source = nbformat.read(course_root / "solutions" / assignment / f"{assignment}.ipynb", 4)
    release = nbformat.read(course_root / "notebooks" / assignment / f"{assignment}.ipynb", 4)
    answers = solution_code(assignment, course_root)
    assert "open(" in answers["chunk_counts_file"]

    def flags(changed: dict[str, str]) -> list[str]:
        return [p.text for p in scan_integrity(sample_class.fill(release, {**answers, **changed}), source)]

    assert flags({}) == []
    reads = answers["train_fast"] + "\n\nHOST = open('/etc/hostname').read()\n"
    line = reads.count("\n")
    opened = f"cell 'train_fast', line {line}: calls open() (files, processes or databases)"
    assert flags({"train_fast": reads}) == [opened]
    assert flags({"chunk_counts_file": "import subprocess\n" + answers["chunk_counts_file"]}) == [
        "cell 'chunk_counts_file', line 1: imports subprocess"
    ]
