/**
 * What the schema says of the package as a whole, beside its resources: how it is named and
 * described, its license, and where its plugin is released.
 */
export interface PackageMetadata {
  displayName: string;
  description: string;
  license: string;
  pluginDownloadURL: string;
}

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
  license: "Apache-2.0",
  pluginDownloadURL: pluginDownloadUrl,
};
