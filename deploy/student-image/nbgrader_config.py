"""nbgrader's configuration for every student of the course's image (installed by configure.sh as
<prefix>/etc/jupyter/nbgrader_config.py). The instructor's side is the course's own nbgrader_config.py.

The values must match the instructor's: the same course id and the same exchange folder (a file system the
students' servers and the instructor's share). Set them here, or per deployment from the spawner's environment
(KubeSpawner's `environment`, DockerSpawner's `environment`, `c.Spawner.environment`).
"""

import os

c = get_config()  # noqa: F821 - provided by nbgrader's config loader

# the course id of the instructor's nbgrader_config.py (c.CourseDirectory.course_id)
c.CourseDirectory.course_id = os.environ.get("BPE_COURSE_ID", "bpe-course")
# the exchange: the same folder as the instructor's c.Exchange.root, writable by every student
c.Exchange.root = os.environ.get("BPE_EXCHANGE_ROOT", "/srv/nbgrader/exchange")

# Who the student is in the exchange: their JupyterHub user name, whatever Unix user their server runs as (every
# student is `jovyan` in a container image, or one shared account under SimpleLocalProcessSpawner).
if os.environ.get("JUPYTERHUB_USER"):
    c.CourseDirectory.student_id = os.environ["JUPYTERHUB_USER"]
