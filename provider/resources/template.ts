/**
 * The Template resource, one part per file in ./template/. This module stays at this path:
 * every template's state names it (`pulumi-gpucloud/provider/resources/template`), so stacks
 * written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./template/provider";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import { templateInputsSchema, templateOutputsSchema } from "./template/inputs";

export { implementation };
/** The dynamic door's provider, which every template's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "template");

/** Template, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "Template",
  implementation,
  inputs: templateInputsSchema,
  outputs: templateOutputsSchema,
  description:
    "A template of the account: the image, launch settings and defaults instances, endpoints " +
    "and worker groups are launched from (hashId). Every change is an edit in place: " +
    "templateId stays, and hashId changes with the content.",
  importSecrets: ["env"],
  packageTypes: ["TemplateArgs", "TemplateDockerLoginArgs"],
  tests: {
    records: "templates",
    isOnAccount: hasRecord("templates", "templateId"),
    // Seeded public templates of other users are not the account's.
    isOwn: (record, account) => record["creatorId"] === account("user")[0]?.["id"],
  },
  badInputs: () => [
    {
      what: "a VM, a port protocol, a spaced env value, a numeric password",
      args: {
        name: "vllm server",
        image: "vllm/vllm-openai",
        runtype: "vm",
        ports: ["8000:8000/sctp"],
        env: { HF_TOKEN: "hf_secret value" },
        dockerLogin: { repo: "ghcr.io", user: "ci", password: 424242424242 },
      },
      cases: [
        { field: "runtype", says: /runtype: must be ssh, jupyter or args/ },
        { field: "ports", says: /ports\.0: a port string is "host:container"/ },
        { field: "env", says: /env\.HF_TOKEN: env values must not contain spaces/ },
        {
          field: "dockerLogin",
          says: /dockerLogin\.password: the registry access token or password, a non-empty string/,
        },
      ],
      secrets: ["424242424242", "hf_secret"],
    },
  ],
  recorded: () => [
    {
      olds: {
        // The inputs at their defaults (the zod definition's).
        ...templateInputsSchema.partial({ name: true, image: true }).parse({}),
        name: "vllm",
        image: "vllm/vllm-openai",
        templateId: 1,
        hashId: "a".repeat(32),
      },
    },
  ],
});
export { Template, type TemplateArgs, type TemplateDockerLoginArgs } from "./template/resource";
export { diffTemplate } from "./template/diff";
export { editFields, toWire } from "./template/wire";
export {
  templateInputsSchema,
  templateOutputsSchema,
  type TemplateInputs,
  type TemplateOutputs,
} from "./template/inputs";
