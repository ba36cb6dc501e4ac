package main

import (
	"fmt"
	"regexp"
	"strings"

	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// What one language's SDK changes of the schema before it is generated, or of the generated
// files, where that language's generator cannot say what the schema says.

// eachPropertyMap calls visit with every map of properties the schema holds: the provider's and
// the resources' inputs and outputs, the types' fields, the functions' arguments and results,
// and the configuration.
func eachPropertyMap(spec *schema.PackageSpec, visit func(map[string]schema.PropertySpec)) {
	visit(spec.Config.Variables)
	visit(spec.Provider.InputProperties)
	visit(spec.Provider.Properties)
	for _, resource := range spec.Resources {
		visit(resource.InputProperties)
		visit(resource.Properties)
	}
	for _, object := range spec.Types {
		visit(object.Properties)
	}
	for _, function := range spec.Functions {
		if function.Inputs != nil {
			visit(function.Inputs.Properties)
		}
		if function.Outputs != nil {
			visit(function.Outputs.Properties)
		}
		if function.ReturnType != nil && function.ReturnType.ObjectTypeSpec != nil {
			visit(function.ReturnType.ObjectTypeSpec.Properties)
		}
	}
}

// eachDescription rewrites every description of the schema: the package's parts' and their
// properties'.
func eachDescription(spec *schema.PackageSpec, rewrite func(string) string) {
	eachPropertyMap(spec, func(properties map[string]schema.PropertySpec) {
		for name, property := range properties {
			property.Description = rewrite(property.Description)
			properties[name] = property
		}
	})
	spec.Provider.Description = rewrite(spec.Provider.Description)
	for token, resource := range spec.Resources {
		resource.Description = rewrite(resource.Description)
		spec.Resources[token] = resource
	}
	for token, object := range spec.Types {
		object.Description = rewrite(object.Description)
		spec.Types[token] = object
	}
	for token, function := range spec.Functions {
		function.Description = rewrite(function.Description)
		spec.Functions[token] = function
	}
}

// --- Go -----------------------------------------------------------------------------------------

// goQueryTypes are the offer queries: an input that takes one of them or the official client's
// query string is, in Go, the query's struct alone.
var goQueryTypes = map[string]bool{
	"#/types/gpucloud:index:OfferQuery":       true,
	"#/types/gpucloud:index:VolumeOfferQuery": true,
}

// goTyped narrows the schema's unions that Go's generator would make `pulumi.Input` (any value at
// all, checked only by the plugin at preview) to the one alternative a Go program can be checked
// against by the compiler:
//   - a query input (the query's struct or the official client's query string) takes the query's
//     struct: `OfferQuery: gpucloud.OfferQueryArgs{...}`, and a VolumeOfferQueryArgs or a
//     pulumi.String there does not compile;
//   - a port (a number, or a string such as `"53/udp"`) is a number: `ExposePorts` is an
//     IntArrayInput.
//
// The schema itself keeps the unions: YAML, Python and TypeScript take every form.
func goTyped(spec *schema.PackageSpec) {
	eachPropertyMap(spec, func(properties map[string]schema.PropertySpec) {
		for name, property := range properties {
			property.TypeSpec = goNarrowed(property.TypeSpec)
			properties[name] = property
		}
	})
}

func goNarrowed(spec schema.TypeSpec) schema.TypeSpec {
	if spec.Items != nil {
		items := goNarrowed(*spec.Items)
		spec.Items = &items
	}
	if spec.AdditionalProperties != nil {
		values := goNarrowed(*spec.AdditionalProperties)
		spec.AdditionalProperties = &values
	}
	if len(spec.OneOf) != 2 {
		return spec
	}
	first, second := spec.OneOf[0], spec.OneOf[1]
	switch {
	case first.Type == "string" && goQueryTypes[second.Ref]:
		return schema.TypeSpec{Ref: second.Ref, Plain: spec.Plain}
	case first.Type == "integer" && second.Type == "string":
		return schema.TypeSpec{Type: "integer", Plain: spec.Plain}
	}
	return spec
}

// --- Python -------------------------------------------------------------------------------------

// A camelCase word a description may name a field by, not part of a longer name (a config key
// `gpucloud:baseUrl`, a path, a URL).
var camelWord = regexp.MustCompile(`(^|[^A-Za-z0-9_:./$-])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)\b`)

// pythonDescriptions spells the schema's field and function names in its descriptions as Python
// programs do (`gpu_ram_gb`, not `gpuRamGb`; `get_offers`): the descriptions are the Python SDK's
// docstrings.
func pythonDescriptions(spec *schema.PackageSpec) {
	fields := map[string]bool{}
	eachPropertyMap(spec, func(properties map[string]schema.PropertySpec) {
		for name := range properties {
			fields[name] = true
		}
	})
	for token := range spec.Functions {
		fields[token[strings.LastIndex(token, ":")+1:]] = true
	}
	eachDescription(spec, func(text string) string {
		return camelWord.ReplaceAllStringFunc(text, func(match string) string {
			parts := camelWord.FindStringSubmatch(match)
			if !fields[parts[2]] {
				return match
			}
			return parts[1] + pygen.PyName(parts[2])
		})
	})
}

// A union of a plain value and an input type, in the classes (`'QueryNumberArgs'`) or in the
// dicts (`'QueryNumberArgsDict'`) of _inputs.py.
var pythonUnion = regexp.MustCompile(`Union\[(_builtins\.[a-z]+), '([A-Za-z0-9]+)Args(?:Dict)?'\]`)

// pythonUnionsTakeBoth lets a union's input type be given either way, as every other input of an
// input type is: Python's generator writes the class alone into the classes' fields and the dict
// alone into the dicts' keys, so that `OfferQueryArgs(gpu_ram_gb={"gte": 24})` and
// `for_instance={"offer_query": OfferQueryArgs(...)}` fail mypy though the plugin takes them.
func pythonUnionsTakeBoth(files map[string][]byte, packageName string) error {
	name := packageName + "/_inputs.py"
	text, ok := files[name]
	if !ok {
		return fmt.Errorf("the generator wrote no %s", name)
	}
	if !pythonUnion.Match(text) {
		return fmt.Errorf("%s has no union of a value and an input type to widen", name)
	}
	files[name] = pythonUnion.ReplaceAll(text, []byte("Union[$1, '${2}Args', '${2}ArgsDict']"))
	return nil
}

// --- Node.js ------------------------------------------------------------------------------------

// nodejsPackageJSON checks that the Node.js SDK's package.json names the plugin's server, where
// the CLI downloads the plugin from when a program first uses the package.
func nodejsPackageJSON(files map[string][]byte, downloadURL string) error {
	text, ok := files["package.json"]
	if !ok {
		return fmt.Errorf("the generator wrote no package.json")
	}
	if downloadURL != "" && !strings.Contains(string(text), fmt.Sprintf("%q", downloadURL)) {
		return fmt.Errorf("package.json does not name the plugin's server %s", downloadURL)
	}
	return nil
}
