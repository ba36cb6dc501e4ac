/**
 * What the schema says of the package as a whole, beside its resources: how it is named and
 * described, who publishes it, its license, where its source and its plugin are. The Pulumi
 * Registry lists a community package from these (with docs/_index.md and
 * docs/installation-configuration.md, which `npm run gen-docs` writes from the same schema).
 */
export interface PackageMetadata {
  displayName: string;
  description: string;
  publisher: string;
  /** The Registry's categories are keywords too: `category/<name>`, `kind/native`. */
  keywords: string[];
  homepage: string;
  repository: string;
  logoUrl: string;
  license: string;
  pluginDownloadURL: string;
}

const repository = "https://github.com/pulumi-gpucloud/pulumi-gpucloud";

/**
 * Where the CLI fetches this plugin when a program needs it and none is installed: the release
 * v<version> of github.com/pulumi-gpucloud/pulumi-gpucloud (the org the Go module path names),
 * asset pulumi-resource-gpucloud-v<version>-<os>-<arch>.tar.gz (RELEASING.md). A mirror takes
 * its place through PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES (docs/guides/installing.md).
 */
export const pluginDownloadUrl = "github://api.github.com/pulumi-gpucloud";

export const packageMetadata: PackageMetadata = {
  displayName: "GPU cloud",
  description:
    "Manage a GPU cloud's volumes, secrets, webhooks, GPU instances, SSH keys, API keys and " +
    "serverless endpoints as code.",
  publisher: "pulumi-gpucloud",
  keywords: ["pulumi", "gpucloud", "gpu", "machine learning", "category/cloud", "kind/native"],
  homepage: repository,
  repository,
  // The file docs/images/logo.svg of this repository, as the Registry fetches it.
  logoUrl:
    "https://raw.githubusercontent.com/pulumi-gpucloud/pulumi-gpucloud/main/docs/images/logo.svg",
  license: "Apache-2.0",
  pluginDownloadURL: pluginDownloadUrl,
};

/** The npm package of the plugin's TypeScript SDK, sdk/nodejs. */
export const nodejsSdkPackage = "@pulumi-gpucloud/gpucloud";

/** The Node.js SDK's README (npm's page). */
function nodejsReadme(version: string): string {
  return [
    `# ${nodejsSdkPackage}`,
    "",
    "Pulumi resources for a GPU cloud through the `gpucloud` resource plugin, which the CLI",
    "downloads by itself (`pulumi install`) or installs from a file:",
    "",
    "```sh",
    `pulumi plugin install resource gpucloud ${version} --file pulumi-resource-gpucloud-v${version}-linux-amd64.tar.gz`,
    "```",
    "",
    "The npm package `pulumi-gpucloud` holds the same resources as dynamic classes, with no",
    "plugin to install. Configure `gpucloud:baseUrl` and `gpucloud:apiKey`, or the environment",
    "variables GPUCLOUD_BASE_URL and GPUCLOUD_API_KEY.",
    "",
  ].join("\n");
}

/**
 * The schema's settings of the plugin's TypeScript SDK (sdk/nodejs): scoped by the GitHub org the
 * Go module path and the plugin's releases name, so that it never clashes with the npm package
 * `pulumi-gpucloud`, the dynamic classes that need no plugin.
 */
export function nodejsLanguage(version: string) {
  return {
    packageName: nodejsSdkPackage,
    packageDescription:
      "Pulumi resources for a GPU cloud through the gpucloud resource plugin (the npm package " +
      "pulumi-gpucloud holds the same resources as dynamic classes, with no plugin).",
    respectSchemaVersion: true,
    dependencies: { "@pulumi/pulumi": "^3.216.0" },
    readme: nodejsReadme(version),
  };
}
