import { execFile } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { pluginDownloadUrl } from "../../provider/native/package-metadata";
import { withoutPlugins } from "../support/yaml-stack";

const execFileAsync = promisify(execFile);

/** PATH with no plugin of the clone's on it (its node_modules/.bin holds one). */
export const cleanPath = withoutPlugins(process.env["PATH"] ?? "", ["gpucloud"]);

/** The release folder over HTTP, as a company's mirror; `fetched` lists the paths asked for. */
export interface Mirror {
  readonly url: string;
  readonly fetched: string[];
  close(): Promise<void>;
}

export async function serveRelease(dir: string): Promise<Mirror> {
  const fetched: string[] = [];
  const server: Server = createServer((request, response) => {
    const file = path.join(dir, path.basename(request.url ?? "/"));
    fetched.push(request.url ?? "");
    readFile(file).then(
      // The CLI checks the length it was told against what it received.
      (body) => response.writeHead(200, { "content-length": body.length }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    fetched,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

export interface Project {
  readonly dir: string;
  readonly env: Record<string, string>;
  /** Runs `pulumi` in the project, non-interactive; its stdout and stderr. */
  pulumi(...args: string[]): Promise<string>;
}

/**
 * A project folder `dir` with a fresh PULUMI_HOME and state beside it, no plugin on PATH, and
 * the CLI pointed at `mirror`, if any, for the plugin (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES).
 */
export async function project(
  dir: string,
  mirror: Mirror | undefined,
  extra: Record<string, string> = {},
): Promise<Project> {
  await mkdir(dir, { recursive: true });
  await mkdir(`${dir}.home`, { recursive: true });
  await mkdir(`${dir}.state`, { recursive: true });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PULUMI_HOME: `${dir}.home`,
    PULUMI_BACKEND_URL: `file://${dir}.state`,
    PULUMI_CONFIG_PASSPHRASE: "release-test",
    ...(mirror === undefined
      ? {}
      : { PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${pluginDownloadUrl}=${mirror.url}` }),
    PATH: cleanPath,
    ...extra,
  };
  const pulumi = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await execFileAsync("pulumi", [...args, "--non-interactive"], {
        cwd: dir,
        env,
        maxBuffer: 1 << 26,
      });
      return stdout + stderr;
    } catch (error) {
      const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
      throw new Error(`pulumi ${args.join(" ")} failed:\n${stdout}${stderr}`);
    }
  };
  return { dir, env, pulumi };
}

/**
 * A YAML program of one account secret, `token`: `head` goes before its resources (a `plugins`
 * block), `options` are the resource's options, indented as they are.
 */
export function yamlTokenProgram(name: string, parts: { head?: string; options?: string }) {
  return `name: ${name}
runtime: yaml
${parts.head ?? ""}resources:
  token:
    type: gpucloud:index:Secret
    properties:
      key: HF_TOKEN
      value:
        fn::secret: abc
${parts.options ?? ""}outputs:
  key: \${token.key}
`;
}

/** A stack `dev` of the project, configured for the emulator at `service` (its URL and key). */
export async function stackOn(
  proj: Project,
  service: { readonly url: string; readonly apiKey: string },
): Promise<void> {
  await proj.pulumi("stack", "init", "dev");
  await proj.pulumi("config", "set", "gpucloud:baseUrl", service.url);
  await proj.pulumi("config", "set", "--secret", "gpucloud:apiKey", service.apiKey);
}

/** The Python program of one account secret, `token` (HF_TOKEN). */
export const pythonTokenProgram = `import pulumi
import pulumi_gpucloud as gpucloud

token = gpucloud.Secret("token", key="HF_TOKEN", value=pulumi.Output.secret("abc"))
pulumi.export("key", token.key)
`;

/** The Go program of one account secret, `token`, of the account key `key`. */
export function goTokenProgram(key: string): string {
  return `package main

import (
	"github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go/gpucloud"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		token, err := gpucloud.NewSecret(ctx, "token", &gpucloud.SecretArgs{
			Key:   pulumi.String("${key}"),
			Value: pulumi.ToSecret(pulumi.String("abc")).(pulumi.StringOutput),
		})
		if err != nil {
			return err
		}
		ctx.Export("key", token.Key)
		return nil
	})
}
`;
}
