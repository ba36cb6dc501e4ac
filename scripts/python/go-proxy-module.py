#!/usr/bin/env python3
"""Writes a Go module as a module proxy serves it (the GOPROXY protocol's files):

    OUT/<module>/@v/list                 the versions, one a line
    OUT/<module>/@v/<version>.info       {"Version": ..., "Time": ...}
    OUT/<module>/@v/<version>.mod        the go.mod
    OUT/<module>/@v/<version>.zip        every file of the module under <module>@<version>/

so that `GOPROXY=file://OUT` fetches it by version exactly as users will from the tag
`sdk/go/v<version>` once it is pushed. The zip follows the go command's rules for a module
taken from a repository: no folder holding another go.mod, no vendor/ nor VCS folders, regular
files only, and the repository's LICENSE at the module's root when the module has none (as the
go command adds it for a module in a subfolder).

Usage: go-proxy-module.py MODULE_DIR MODULE_PATH VERSION TIME LICENSE OUT
(TIME: RFC 3339, UTC, the commit's.) Prints the zip's path.
"""

import json
import os
import sys
import zipfile

SKIPPED_FOLDERS = {".git", ".hg", ".svn", ".bzr", "vendor"}


def escaped(module_path: str) -> str:
    # The proxy protocol spells an upper-case letter as "!" and its lower case.
    return "".join(f"!{c.lower()}" if c.isupper() else c for c in module_path)


def module_files(module_dir: str) -> list[str]:
    files: list[str] = []
    for folder, subfolders, names in os.walk(module_dir):
        subfolders[:] = sorted(
            name
            for name in subfolders
            if name not in SKIPPED_FOLDERS
            and not os.path.exists(os.path.join(folder, name, "go.mod"))
        )
        for name in sorted(names):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                files.append(os.path.relpath(path, module_dir).replace(os.sep, "/"))
    return files


def main() -> None:
    module_dir, module_path, version, time, license_file, out = sys.argv[1:7]
    target = os.path.join(out, escaped(module_path), "@v")
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "list"), "w", encoding="utf-8") as listing:
        listing.write(f"{version}\n")
    with open(os.path.join(target, f"{version}.info"), "w", encoding="utf-8") as info:
        json.dump({"Version": version, "Time": time}, info)
    with open(os.path.join(module_dir, "go.mod"), "rb") as go_mod:
        mod = go_mod.read()
    with open(os.path.join(target, f"{version}.mod"), "wb") as mod_file:
        mod_file.write(mod)
    prefix = f"{module_path}@{version}/"
    zip_path = os.path.join(target, f"{version}.zip")
    files = module_files(module_dir)
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in files:
            archive.write(os.path.join(module_dir, name), prefix + name)
        if "LICENSE" not in files:
            archive.write(license_file, prefix + "LICENSE")
    print(zip_path)


if __name__ == "__main__":
    main()
