// Command gen-sdks writes the Go, Python and Node.js SDKs of a Pulumi package from its schema,
// with the code generators the Pulumi CLI itself uses (github.com/pulumi/pulumi/pkg/v3/codegen/go,
// codegen/python and codegen/nodejs), so that no language host is needed to generate them
// (`pulumi package gen-sdk` asks the language hosts to do it, and the hosts this project can
// build predate that). What each language changes of the schema first is in languages.go.
//
// Usage: gen-sdks [-sdk-version v3.X.Y] SCHEMA.json OUT_ROOT
//
// OUT_ROOT/go becomes a Go module: go.mod (module path = the schema's language.go.importBasePath
// without its last element, requiring github.com/pulumi/pulumi/sdk/v3 at -sdk-version), and the
// package in OUT_ROOT/go/<last element of importBasePath>. OUT_ROOT/python becomes a Python
// project (pyproject.toml, the package language.python.packageName, and a README.md at its root,
// which pyproject.toml names). OUT_ROOT/nodejs becomes an npm package of TypeScript sources
// (language.nodejs.packageName; package.json's `pulumi` field names the plugin and its server).
// Each of the three directories is emptied first.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"
)

const tool = "pulumi-gpucloud gen-sdks"

func main() {
	sdkVersion := flag.String("sdk-version", "v3.259.0", "the github.com/pulumi/pulumi/sdk/v3 version go.mod requires")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gen-sdks [-sdk-version v3.X.Y] SCHEMA.json OUT_ROOT")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *sdkVersion); err != nil {
		fmt.Fprintf(os.Stderr, "gen-sdks: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, outRoot, sdkVersion string) error {
	text, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	goFiles, err := goSDK(text, sdkVersion)
	if err != nil {
		return fmt.Errorf("the Go SDK: %w", err)
	}
	pyFiles, err := pythonSDK(text)
	if err != nil {
		return fmt.Errorf("the Python SDK: %w", err)
	}
	nodeFiles, err := nodejsSDK(text)
	if err != nil {
		return fmt.Errorf("the Node.js SDK: %w", err)
	}
	if err := write(filepath.Join(outRoot, "go"), goFiles); err != nil {
		return err
	}
	if err := write(filepath.Join(outRoot, "python"), pyFiles); err != nil {
		return err
	}
	return write(filepath.Join(outRoot, "nodejs"), nodeFiles)
}

func parse(text []byte) (schema.PackageSpec, error) {
	var spec schema.PackageSpec
	err := json.Unmarshal(text, &spec)
	return spec, err
}

// bind validates the schema against Pulumi's metaschema, as `pulumi package gen-sdk` does. Each
// generator gets a package of its own: they record their language's settings in it.
func bind(spec schema.PackageSpec) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("binding the schema: %w", err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("the schema is not valid: %s", diags.Error())
	}
	return pkg, nil
}

func goSDK(text []byte, sdkVersion string) (map[string][]byte, error) {
	spec, err := parse(text)
	if err != nil {
		return nil, err
	}
	goTyped(&spec)
	pkg, err := bind(spec)
	if err != nil {
		return nil, err
	}
	files, err := gogen.GeneratePackage(tool, pkg, nil)
	if err != nil {
		return nil, err
	}
	if err := pkg.ImportLanguages(map[string]schema.Language{"go": gogen.Importer}); err != nil {
		return nil, err
	}
	info, _ := pkg.Language["go"].(gogen.GoPackageInfo)
	if info.ImportBasePath == "" {
		return nil, fmt.Errorf("the schema sets no language.go.importBasePath")
	}
	if _, ok := files["go.mod"]; !ok {
		var mod modfile.File
		if err := mod.AddModuleStmt(path.Dir(info.ImportBasePath)); err != nil {
			return nil, err
		}
		if err := mod.AddGoStmt("1.25"); err != nil {
			return nil, err
		}
		if err := mod.AddRequire("github.com/pulumi/pulumi/sdk/v3", sdkVersion); err != nil {
			return nil, err
		}
		if files["go.mod"], err = mod.Format(); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func pythonSDK(text []byte) (map[string][]byte, error) {
	spec, err := parse(text)
	if err != nil {
		return nil, err
	}
	requiredOnlyInCheck(&spec)
	pythonDescriptions(&spec)
	pkg, err := bind(spec)
	if err != nil {
		return nil, err
	}
	files, err := pygen.GeneratePackage(tool, pkg, nil, noPackages{})
	if err != nil {
		return nil, err
	}
	info, _ := pkg.Language["python"].(pygen.PackageInfo)
	if info.PackageName == "" {
		return nil, fmt.Errorf("the schema sets no language.python.packageName")
	}
	if err := pythonUnionsTakeBoth(files, info.PackageName); err != nil {
		return nil, err
	}
	// The generator writes the package's README inside the package, while pyproject.toml names
	// one at the project's root: `pip install ./sdk/python` needs it there.
	readme, ok := files[path.Join(info.PackageName, "README.md")]
	if !ok {
		return nil, fmt.Errorf("the generator wrote no %s/README.md", info.PackageName)
	}
	files["README.md"] = readme
	pyproject, err := spdxLicense(files["pyproject.toml"])
	if err != nil {
		return nil, err
	}
	files["pyproject.toml"] = pyproject
	return files, nil
}

// nodejsSDK is the Node.js SDK as TypeScript sources with their package.json and tsconfig.json
// (built with tsc by whoever packs or uses it).
func nodejsSDK(text []byte) (map[string][]byte, error) {
	spec, err := parse(text)
	if err != nil {
		return nil, err
	}
	pkg, err := bind(spec)
	if err != nil {
		return nil, err
	}
	files, err := nodegen.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
	if err != nil {
		return nil, err
	}
	if err := nodejsPackageJSON(files, spec.PluginDownloadURL); err != nil {
		return nil, err
	}
	return files, nil
}

// The generator writes the licence as a table (`[project.license]` with `text = "..."`), which
// setuptools deprecates since 77.0 with a warning at every `pip install` of the SDK (PEP 639:
// a SPDX expression as a plain string). The string form needs setuptools 77 or later to build.
var (
	licenseTable      = regexp.MustCompile(`(?m)^([ \t]*)\[project\.license\]\n\s*text = ("[^"\n]*")\n`)
	setuptoolsRequire = regexp.MustCompile(`"setuptools>=[0-9.]+"`)
)

// spdxLicense rewrites the generated pyproject.toml's licence as the string setuptools takes
// without a warning; it fails when the generator's output no longer has the expected form.
func spdxLicense(pyproject []byte) ([]byte, error) {
	if !licenseTable.Match(pyproject) || !setuptoolsRequire.Match(pyproject) {
		return nil, fmt.Errorf("pyproject.toml has no [project.license] table or setuptools requirement to rewrite:\n%s", pyproject)
	}
	out := licenseTable.ReplaceAll(pyproject, []byte("${1}license = ${2}\n"))
	return setuptoolsRequire.ReplaceAll(out, []byte(`"setuptools>=77.0.0"`)), nil
}

// requiredOnlyInCheck leaves the saying of a missing input to the provider's check. The Python
// generator makes each required input a keyword argument that raises a bare TypeError, with a
// traceback, before the program registers anything; the check says the same thing in one line
// naming the field and what it holds, as it does for TypeScript, Go and YAML programs. The
// docstrings keep saying which inputs are required.
func requiredOnlyInCheck(spec *schema.PackageSpec) {
	for token, resource := range spec.Resources {
		for _, name := range resource.RequiredInputs {
			if property, ok := resource.InputProperties[name]; ok {
				property.Description = requiredDescription(property.Description)
				resource.InputProperties[name] = property
			}
		}
		resource.RequiredInputs = nil
		spec.Resources[token] = resource
	}
	for token, function := range spec.Functions {
		if function.Inputs == nil {
			continue
		}
		for _, name := range function.Inputs.Required {
			if property, ok := function.Inputs.Properties[name]; ok {
				property.Description = requiredDescription(property.Description)
				function.Inputs.Properties[name] = property
			}
		}
		function.Inputs.Required = nil
		spec.Functions[token] = function
	}
}

func requiredDescription(description string) string {
	if description == "" {
		return "Required."
	}
	return "Required. " + description
}

// write replaces dir with exactly files, in a stable order.
func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		target := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// noPackages loads packages for a schema that references no other package (ours refers only to
// its own types and to pulumi.json#/Any): it never loads a plugin.
type noPackages struct{}

func (noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q: gen-sdks loads no other package", name)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, d.Version)
}

func (l noPackages) LoadPackageReference(name string, version *semver.Version) (schema.PackageReference, error) {
	_, err := l.LoadPackage(name, version)
	return nil, err
}

func (l noPackages) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, d.Version)
}
