// Command gen-go-sdk writes the Go SDK of a Pulumi package from its schema, with the Go code
// generator the Pulumi CLI itself uses (github.com/pulumi/pulumi/pkg/v3/codegen/go), so that no
// Go language host is needed to generate it (`pulumi package gen-sdk --language go` asks the
// `pulumi-language-go` plugin to do this, and the module proxy here does not serve that plugin).
//
// Usage: gen-go-sdk [-sdk-version v3.X.Y] SCHEMA.json OUT_DIR
//
// OUT_DIR becomes a Go module: go.mod (module path = the schema's language.go.importBasePath
// without its last element, requiring github.com/pulumi/pulumi/sdk/v3 at -sdk-version), and the
// package in OUT_DIR/<last element of importBasePath>. OUT_DIR is emptied first.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"
)

const tool = "pulumi-gpucloud gen-go-sdk"

func main() {
	sdkVersion := flag.String("sdk-version", "v3.259.0", "the github.com/pulumi/pulumi/sdk/v3 version go.mod requires")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gen-go-sdk [-sdk-version v3.X.Y] SCHEMA.json OUT_DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *sdkVersion); err != nil {
		fmt.Fprintf(os.Stderr, "gen-go-sdk: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, outDir, sdkVersion string) error {
	text, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	// BindSpec validates the schema against Pulumi's metaschema as `pulumi package gen-sdk` does.
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("binding the schema: %w", err)
	}
	if diags.HasErrors() {
		return fmt.Errorf("the schema is not valid: %s", diags.Error())
	}
	files, err := gogen.GeneratePackage(tool, pkg, nil)
	if err != nil {
		return fmt.Errorf("generating the Go package: %w", err)
	}
	if err := pkg.ImportLanguages(map[string]schema.Language{"go": gogen.Importer}); err != nil {
		return err
	}
	info, _ := pkg.Language["go"].(gogen.GoPackageInfo)
	if info.ImportBasePath == "" {
		return fmt.Errorf("the schema sets no language.go.importBasePath")
	}
	if _, ok := files["go.mod"]; !ok {
		var mod modfile.File
		if err := mod.AddModuleStmt(path.Dir(info.ImportBasePath)); err != nil {
			return err
		}
		if err := mod.AddGoStmt("1.25"); err != nil {
			return err
		}
		if err := mod.AddRequire("github.com/pulumi/pulumi/sdk/v3", sdkVersion); err != nil {
			return err
		}
		if files["go.mod"], err = mod.Format(); err != nil {
			return err
		}
	}

	if err := os.RemoveAll(outDir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		target := filepath.Join(outDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// noPackages is the schema loader for a schema that references no other package (ours refers
// only to its own types and to pulumi.json#/Any): it never loads a plugin.
type noPackages struct{}

func (noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q: gen-go-sdk loads no other package", name)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, d.Version)
}
