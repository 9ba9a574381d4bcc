"""Builds and installs the kiln Python package with setuptools, offline:

    pip install --no-build-isolation ./python      (from the repository root; into a venv, or
                                                    with --user where pip allows it)

The extension module is built by CMake from the kiln sources beside this folder (Release, the
same flags as `make build`), for the interpreter that runs this script. To reuse a build folder
that is already configured (e.g. build/release after `make build`), set KILN_CMAKE_BUILD_DIR.
`make python` installs the package as `make build` built it, without pip.
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (ROOT / "CMakeLists.txt").exists():
            raise RuntimeError(f"the kiln sources are not beside {HERE}: build from the kiln repository")
        package_dir = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = os.environ.get("KILN_CMAKE_BUILD_DIR")
        env = dict(os.environ)
        env.setdefault("CCACHE_BASEDIR", str(ROOT))
        if build_dir:
            build_dir = (ROOT / build_dir).resolve()  # relative: to the repository root
            configure = ["cmake", str(build_dir)]
        else:
            build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
            configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
                         "-DCMAKE_BUILD_TYPE=Release", "-DKILN_BUILD_TESTS=OFF"]
        configure += [f"-DPython_EXECUTABLE={sys.executable}", "-DKILN_PYTHON=ON"]
        jobs = os.environ.get("KILN_JOBS", str(os.cpu_count() or 1))
        subprocess.check_call(configure, env=env)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "kiln_python",
                               "-j", jobs], env=env)
        # CMake stages the module in <build>/python/kiln; setuptools packages from package_dir.
        built = pathlib.Path(self.get_ext_filename(ext.name)).name
        package_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build_dir / "python" / "kiln" / built, package_dir / built)


setup(
    name="kiln",
    version="0.1.0",
    description="kiln: an ONNX inference engine (Python binding)",
    packages=["kiln"],
    ext_modules=[CMakeExtension("kiln._kiln")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    extras_require={"dask": ["dask", "distributed", "pandas"]},
    zip_safe=False,
)
