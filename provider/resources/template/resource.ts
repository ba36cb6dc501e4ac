import type * as pulumi from "@pulumi/pulumi";
import { secret as secretOutput } from "@pulumi/pulumi/output";
import type { InstanceOfferQuery } from "../../client";
import { DynamicResource, providerEntry } from "../../shim";

export interface TemplateDockerLoginArgs {
  /** The registry, e.g. `docker.io` or `ghcr.io`. */
  repo: pulumi.Input<string>;
  user: pulumi.Input<string>;
  /** An access token or password; stored only as a Pulumi secret and sent only to the service. */
  password: pulumi.Input<string>;
}

export interface TemplateArgs {
  /** The template's name (required). */
  name: pulumi.Input<string>;
  /** The Docker image path, e.g. `vllm/vllm-openai` (required). */
  image: pulumi.Input<string>;
  /** The image tag; `latest` when absent. */
  tag?: pulumi.Input<string>;
  /**
   * Environment variables of instances launched from the template: names of letters, digits and
   * `_`; values without spaces. Sent as the service's Docker-flag string (`-e NAME=value`).
   */
  env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** Ports to map: `8000` (the same on both sides), `"8080:80"`, `"5353:5353/udp"`. */
  ports?: pulumi.Input<pulumi.Input<number | string>[]>;
  /** Shell commands run when an instance starts. */
  onstart?: pulumi.Input<string>;
  /** How instances are launched: `ssh`, `jupyter` or `args` (the default). */
  runtype?: pulumi.Input<"ssh" | "jupyter" | "args">;
  /** With runtype `args`: the arguments passed to the image's entrypoint. */
  args?: pulumi.Input<string>;
  /** The recommended disk size in GB (default 8). */
  diskGb?: pulumi.Input<number>;
  description?: pulumi.Input<string>;
  readme?: pulumi.Input<string>;
  /** Not publicly searchable (default true). */
  private?: pulumi.Input<boolean>;
  sshDirect?: pulumi.Input<boolean>;
  useSsh?: pulumi.Input<boolean>;
  jupyterDirect?: pulumi.Input<boolean>;
  jupyterDir?: pulumi.Input<string>;
  useJupyterLab?: pulumi.Input<boolean>;
  /**
   * Default machine filters of instances launched from the template, in Instance.offerQuery's
   * form (`{ cudaMaxGood: { gte: 12.6 }, gpuRamGb: { gte: 24 } }`) without order, limit or type.
   */
  searchFilters?: pulumi.Input<InstanceOfferQuery | string>;
  /** Credentials of a private registry; the whole output is a Pulumi secret. */
  dockerLogin?: pulumi.Input<TemplateDockerLoginArgs>;
}

/**
 * A template of the account: defaults (image, env, ports, onstart, disk, filters, ...) that
 * instances launch from by `hashId`. Every change is an edit in place: `templateId` stays and
 * `hashId` changes with the content. A create the service answers with a template the account
 * already had (identical content) fails instead of adopting it.
 */
export class Template extends DynamicResource {
  declare readonly name: pulumi.Output<string>;
  declare readonly image: pulumi.Output<string>;
  declare readonly tag: pulumi.Output<string>;
  declare readonly env: pulumi.Output<Record<string, string>>;
  /** As `host:container[/udp]`. */
  declare readonly ports: pulumi.Output<string[]>;
  declare readonly onstart: pulumi.Output<string>;
  declare readonly runtype: pulumi.Output<"ssh" | "jupyter" | "args">;
  declare readonly args: pulumi.Output<string>;
  declare readonly diskGb: pulumi.Output<number>;
  declare readonly description: pulumi.Output<string>;
  declare readonly readme: pulumi.Output<string>;
  declare readonly private: pulumi.Output<boolean>;
  declare readonly sshDirect: pulumi.Output<boolean>;
  declare readonly useSsh: pulumi.Output<boolean>;
  declare readonly jupyterDirect: pulumi.Output<boolean>;
  declare readonly jupyterDir: pulumi.Output<string>;
  declare readonly useJupyterLab: pulumi.Output<boolean>;
  declare readonly searchFilters: pulumi.Output<InstanceOfferQuery | string | undefined>;
  /** A Pulumi secret. */
  declare readonly dockerLogin: pulumi.Output<
    { repo: string; user: string; password: string } | undefined
  >;
  /** The service's numeric id of the template. */
  declare readonly templateId: pulumi.Output<number>;
  /** The content hash to launch instances from (`Instance.templateHashId`); changes on edit. */
  declare readonly hashId: pulumi.Output<string>;

  constructor(name: string, args: TemplateArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/template"),
      name,
      // Every output is named here, or the resource would not expose it.
      {
        // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
        ...args,
        name: args.name,
        image: args.image,
        tag: args.tag,
        env: args.env,
        ports: args.ports,
        onstart: args.onstart,
        runtype: args.runtype,
        args: args.args,
        diskGb: args.diskGb,
        description: args.description,
        readme: args.readme,
        private: args.private,
        sshDirect: args.sshDirect,
        useSsh: args.useSsh,
        jupyterDirect: args.jupyterDirect,
        jupyterDir: args.jupyterDir,
        useJupyterLab: args.useJupyterLab,
        searchFilters: args.searchFilters,
        // A secret input too: the state's copy of the inputs is then encrypted as well.
        dockerLogin: args.dockerLogin === undefined ? undefined : secretOutput(args.dockerLogin),
        templateId: undefined,
        hashId: undefined,
      },
      { ...opts, additionalSecretOutputs: ["dockerLogin"] },
      "Template",
    );
  }
}
