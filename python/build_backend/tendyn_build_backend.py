"""The build backend of `pip install .` (pyproject.toml): setuptools' own (setuptools.build_meta,
which runs setup.py), after tendyn_prereq.check_prerequisites(), so that a Python that lacks
something is told what and how to get it before anything is compiled, instead of failing minutes
later (for example with "invalid command 'bdist_wheel'" when wheel is missing).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tendyn_prereq import check_prerequisites  # noqa: E402

check_prerequisites()
# setuptools' backend is importable now: its hooks are ours.
from setuptools.build_meta import *  # noqa: E402,F401,F403
from setuptools.build_meta import __all__  # noqa: E402,F401
