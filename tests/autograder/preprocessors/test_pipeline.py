"""The pipeline as nbgrader loads it: every step named by its dotted path is a preprocessor class, in the order the
pipeline's rules give (:mod:`autograder.preprocessors.pipeline`)."""

from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from autograder.preprocessors import pipeline
from autograder.preprocessors.submission_doctor import SubmissionDoctor


def _configured(course_root: Path) -> Config:
    c = Config()
    pipeline.configure(c, course_root)
    return c


def test_every_step_nbgrader_loads_by_name_is_a_preprocessor_class(course_root):
    c = _configured(course_root)
    names = [*c.Autograde.sanitize_preprocessors, *c.Autograde.autograde_preprocessors]
    names += c.GenerateFeedback.preprocessors
    loaded = {name: import_item(name) for name in names}  # what nbconvert's exporter does with a name
    assert [name for name, step in loaded.items() if not issubclass(step, Preprocessor)] == []


def test_the_course_steps_stand_where_the_ordering_rules_put_them(course_root):
    c = _configured(course_root)
    steps = [name.rsplit(".", 1)[1] for name in c.Autograde.autograde_preprocessors]
    assert c.Autograde.sanitize_preprocessors[0].endswith(".DoctorRepairs")
    assert steps.index("LimitedExecute") < steps.index("JudgeTests") < steps.index("IgnorePattern")
    assert steps.index("JudgeTests") < steps.index("SaveAutoGrades") < steps.index("AssignLatePenalties")
    assert steps[-1] == "CheckCellMetadata"
    assert c.GenerateFeedback.preprocessors[-1].endswith(".SanitizeFeedback")
    hook = c.Autograde.pre_convert_hook
    assert isinstance(hook, SubmissionDoctor) and hook.release_directory == course_root / "release"


def test_the_course_config_registers_this_pipeline(course_root):
    from autograder.course.directory import load_config

    config = load_config(course_root)
    assert list(config.Autograde.autograde_preprocessors) == pipeline.AUTOGRADE
    assert list(config.Autograde.sanitize_preprocessors) == pipeline.SANITIZE
