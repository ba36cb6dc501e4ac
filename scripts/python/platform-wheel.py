#!/usr/bin/env python3
"""Makes the Python SDK's platform wheel: pulumi_gpucloud with the standalone plugin and emulator.

`pip install` of it puts, beside the SDK, the emulator in the virtual environment's bin/ (a
command) and the plugin in its share/pulumi-gpucloud/, the same place on every platform, where
the project's `plugins:` block points the CLI (docs/guides/installing.md): a Python program
needs no plugin download, clone or Node.js.

Not on PATH, so that an activated environment draws no "using pulumi-resource-gpucloud from
$PATH" warning; and the wheel's pulumi-plugin.json says `"resource": false`, so that `pulumi
install` downloads nothing: the CLI's install looks only at its plugin cache, never at a
project's plugins (pulumi/pulumi v3.259.0, pkg/cmd/pulumi/packageinstallation). The pure wheel
keeps `"resource": true`: the CLI downloads the plugin for it.

It builds sdk/python's pure wheel with pip (offline: the wheelhouse holds setuptools), then
writes it again with the two executables (as `<name>.data/scripts/` and `<name>.data/data/`
entries, which pip installs with their mode) and the platform's tag. The release
(scripts/release.mjs) names each target's tag; manylinux_2_28_x86_64 by default. A Windows
tarball's executables end in .exe.

Usage: platform-wheel.py SDK_DIR PLUGIN_TARBALL EMULATOR_TARBALL OUT_DIR [PLATFORM_TAG]
       platform-wheel.py --pure SDK_DIR OUT_DIR      (the wheel without executables)
Prints the wheel's path.
"""

import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

DEFAULT_PLATFORM_TAG = "manylinux_2_28_x86_64"
# The executables deflated, as the release ships them. PLATFORM_WHEEL_STORED=1 stores them
# instead: the same files with the same modes, for test/e2e/standalone-plugin.test.ts, which
# makes a wheel each run (deflating 270 MB is about 10 s of CPU, and pip inflates it again); the
# release's own wheel is installed by test/release/registries.test.ts.
EXECUTABLE_COMPRESSION = (
    zipfile.ZIP_STORED if os.environ.get("PLATFORM_WHEEL_STORED") == "1" else zipfile.ZIP_DEFLATED
)
# Under the environment's prefix: `venv/share/pulumi-gpucloud` on Linux, macOS and Windows.
PLUGIN_DIR = "share/pulumi-gpucloud"


def without_resource(plugin_json: bytes) -> bytes:
    """The SDK's pulumi-plugin.json saying its plugin comes with it (no download)."""
    data = json.loads(plugin_json)
    data["resource"] = False
    return (json.dumps(data, indent=2) + "\n").encode()


def executable_from(tarball: str, name: str) -> tuple[str, bytes]:
    with tarfile.open(tarball, "r:gz") as archive:
        for file_name in (name, f"{name}.exe"):
            try:
                member = archive.extractfile(file_name)
            except KeyError:
                continue
            if member is not None:
                return file_name, member.read()
        raise SystemExit(f"platform-wheel: {tarball} holds no {name}")


def record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def pure_wheel(sdk_dir: str, into: str) -> str:
    # pip builds in the folder it is given: a copy keeps the checkout free of build/ and
    # *.egg-info.
    copy = os.path.join(into, "sdk")
    shutil.copytree(
        sdk_dir, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", into, copy],
        check=True,
    )
    [name] = [file for file in os.listdir(into) if file.endswith("-py3-none-any.whl")]
    return os.path.join(into, name)


def copy_pure(sdk_dir: str, out_dir: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        pure = pure_wheel(sdk_dir, scratch)
        os.makedirs(out_dir, exist_ok=True)
        out = os.path.join(out_dir, os.path.basename(pure))
        shutil.copyfile(pure, out)
    print(out)


def main() -> None:
    if sys.argv[1] == "--pure":
        copy_pure(sys.argv[2], sys.argv[3])
        return
    sdk_dir, plugin_tarball, emulator_tarball, out_dir = sys.argv[1:5]
    platform_tag = f"py3-none-{sys.argv[5] if len(sys.argv) > 5 else DEFAULT_PLATFORM_TAG}"
    executables = dict(
        [
            executable_from(plugin_tarball, "pulumi-resource-gpucloud"),
            executable_from(emulator_tarball, "gpucloud-emulator"),
        ]
    )
    with tempfile.TemporaryDirectory() as scratch:
        pure = pure_wheel(sdk_dir, scratch)
        distribution = os.path.basename(pure).split("-py3-none-any.whl")[0]
        places = {
            "gpucloud-emulator": f"{distribution}.data/scripts",
            "pulumi-resource-gpucloud": f"{distribution}.data/data/{PLUGIN_DIR}",
        }
        plugin_json = "pulumi_gpucloud/pulumi-plugin.json"
        dist_info = f"{distribution}.dist-info"
        out = os.path.join(out_dir, f"{distribution}-{platform_tag}.whl")
        os.makedirs(out_dir, exist_ok=True)
        records: list[str] = []
        partial = f"{out}.partial"
        with zipfile.ZipFile(pure) as source, zipfile.ZipFile(
            partial, "w", zipfile.ZIP_DEFLATED
        ) as wheel:
            for item in source.infolist():
                if item.filename in (f"{dist_info}/RECORD", f"{dist_info}/WHEEL"):
                    continue
                data = source.read(item)
                if item.filename == plugin_json:
                    data = without_resource(data)
                wheel.writestr(item, data)
                records.append(record_line(item.filename, data))
            for name, data in executables.items():
                path = f"{places[name.removesuffix('.exe')]}/{name}"
                info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
                info.external_attr = (0o100755 & 0xFFFF) << 16
                info.compress_type = EXECUTABLE_COMPRESSION
                wheel.writestr(info, data)
                records.append(record_line(path, data))
            wheel_file = io.StringIO()
            wheel_file.write("Wheel-Version: 1.0\n")
            wheel_file.write("Generator: pulumi-gpucloud platform-wheel.py\n")
            wheel_file.write("Root-Is-Purelib: false\n")
            wheel_file.write(f"Tag: {platform_tag}\n")
            wheel_bytes = wheel_file.getvalue().encode()
            wheel.writestr(f"{dist_info}/WHEEL", wheel_bytes)
            records.append(record_line(f"{dist_info}/WHEEL", wheel_bytes))
            records.append(f"{dist_info}/RECORD,,")
            wheel.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
        os.replace(partial, out)
    print(out)


if __name__ == "__main__":
    main()
