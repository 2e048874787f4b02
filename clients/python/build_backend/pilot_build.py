"""A PEP 517 build backend of the standard library only, so `pip install` needs nothing from a package index.

It builds the one pure-Python wheel of this project (src/pilot_network_client, py3-none-any) and its source
archive. pip calls it through pyproject.toml's `build-backend`/`backend-path`.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "pilot_network_client"
SDIST_FILES = ["pyproject.toml", "README.md", "LICENSE", "build_backend/pilot_build.py"]
FIXED_TIME = (2026, 1, 1, 0, 0, 0)  # every archive entry gets it, so the same sources give the same bytes


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as file:
        text = file.read()
    section = text.split("[project]", 1)[1]

    def field(name):
        match = re.search(r'^%s\s*=\s*"([^"]*)"' % name, section, re.MULTILINE)
        if not match:
            raise ValueError("pyproject.toml: [project] has no %s" % name)
        return match.group(1)

    return {"name": field("name"), "version": field("version"), "summary": field("description"), "python": field("requires-python")}


def _dist_name(project):
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _metadata(project):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as file:
        readme = file.read()
    return (
        "Metadata-Version: 2.1\n"
        "Name: %s\nVersion: %s\nSummary: %s\nLicense: MIT\nRequires-Python: %s\n"
        "Classifier: Typing :: Typed\nDescription-Content-Type: text/markdown\n\n%s"
        % (project["name"], project["version"], project["summary"], project["python"], readme)
    )


def _package_files():
    base = os.path.join(ROOT, "src", PACKAGE)
    for name in sorted(os.listdir(base)):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(base, name), "rb") as file:
                yield "%s/%s" % (PACKAGE, name), file.read()


def _read(path):
    with open(os.path.join(ROOT, path), "rb") as file:
        return file.read()


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def _write_zip(archive, path, data):
    info = zipfile.ZipInfo(path, FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    dist = _dist_name(project)
    info = "%s-%s.dist-info" % (dist, project["version"])
    files = list(_package_files())
    with open(os.path.join(ROOT, "LICENSE"), "rb") as file:
        files.append(("%s/LICENSE" % info, file.read()))
    files.append(("%s/METADATA" % info, _metadata(project).encode("utf-8")))
    files.append(("%s/WHEEL" % info, b"Wheel-Version: 1.0\nGenerator: pilot_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "\n".join([_record_line(path, data) for path, data in files] + ["%s/RECORD,," % info, ""])
    filename = "%s-%s-py3-none-any.whl" % (dist, project["version"])
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as archive:
        for path, data in files:
            _write_zip(archive, path, data)
        _write_zip(archive, "%s/RECORD" % info, record.encode("utf-8"))
    return filename


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    stem = "%s-%s" % (_dist_name(project), project["version"])
    members = [(path, _read(path)) for path in SDIST_FILES]
    members += [("src/%s" % path, data) for path, data in _package_files()]
    members.append(("PKG-INFO", _metadata(project).encode("utf-8")))
    filename = "%s.tar.gz" % stem
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for path, data in members:
            entry = tarfile.TarInfo("%s/%s" % (stem, path))
            entry.size, entry.mode, entry.mtime = len(data), 0o644, 1767225600
            archive.addfile(entry, io.BytesIO(data))
    return filename
