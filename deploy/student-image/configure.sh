#!/bin/sh
# The students' image, after `pip install './learner[student]'`: nbgrader's student side only, set up for the course.
#
#   PYTHON=/opt/conda/bin/python sh deploy/student-image/configure.sh     (default: the python3 on PATH)
#
# What it does, in the image's own prefix (sys.prefix), so it holds for every student of the image:
#   * turns off nbgrader's instructor extensions: the formgrader (server and JupyterLab menu) and the Create
#     Assignment toolbar; the Assignments tab (fetch, validate, submit, fetch feedback) and Courses stay on;
#   * installs the course's student configuration (deploy/student-image/nbgrader_config.py: course id, exchange)
#     as <prefix>/etc/jupyter/nbgrader_config.py, where nbgrader looks for it.
# Nothing of the grader, the reference solutions or the source notebooks is in the image: never install the
# repository itself there (`pip install .` or `-e .`), only ./learner.
set -eu
python=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)

"$python" -m jupyter_server extension disable --sys-prefix nbgrader.server_extensions.formgrader
"$python" -m jupyterlab.labextensions disable --level=sys_prefix @jupyter/nbgrader:formgrader
"$python" -m jupyterlab.labextensions disable --level=sys_prefix @jupyter/nbgrader:create-assignment

prefix=$("$python" -c 'import sys; print(sys.prefix)')
mkdir -p "$prefix/etc/jupyter"
cp "$here/nbgrader_config.py" "$prefix/etc/jupyter/nbgrader_config.py"
echo "student image configured in $prefix: the Assignments tab on, the formgrader off"
