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
export const provider = dynamicProvider(implementation);

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
