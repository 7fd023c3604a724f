"""bpe_lab: the learner's toolkit of the BPE course: self-checks, charts and widgets, with no answer key.

What a release notebook imports comes from here, and nothing here implements a graded function: the charts run
on the learner's own functions, and where they need the course's own rounds (a comparison, or while the
learner's functions are still stubs) they read traces shipped as data; the self-checks compare with the
expected answers of the public cases, also shipped as data. ``python -m autograder release`` regenerates both
from the reference (:mod:`bpe_ref`), which only the grader's install has.
"""
