/**
 * The Template resource, one part per file in ./template/. This module stays at this path:
 * every template's state names it (`pulumi-gpucloud/provider/resources/template`), so stacks
 * written by earlier versions keep finding their provider.
 */
export { provider } from "./template/provider";
export { Template, type TemplateArgs, type TemplateDockerLoginArgs } from "./template/resource";
export { diffTemplate } from "./template/diff";
export { editFields, toWire } from "./template/wire";
export {
  templateInputsSchema,
  templateOutputsSchema,
  type TemplateInputs,
  type TemplateOutputs,
} from "./template/inputs";
