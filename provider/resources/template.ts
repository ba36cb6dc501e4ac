/**
 * The Template resource, one part per file in ./template/. This module stays at this path:
 * every template's state names it (`pulumi-gpucloud/provider/resources/template`), so stacks
 * written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./template/provider";

export { implementation };
/** The dynamic door's provider, which every template's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation);
export { Template, type TemplateArgs, type TemplateDockerLoginArgs } from "./template/resource";
export { diffTemplate } from "./template/diff";
export { editFields, toWire } from "./template/wire";
export {
  templateInputsSchema,
  templateOutputsSchema,
  type TemplateInputs,
  type TemplateOutputs,
} from "./template/inputs";
