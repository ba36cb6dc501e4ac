import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { templateInputsSchema, type TemplateInputs, type TemplateOutputs } from "./inputs";

const inputFields = Object.keys(templateInputsSchema.shape) as (keyof TemplateInputs)[];

/**
 * The edit endpoint (PUT by hash) takes every field, so every change is made in place: nothing
 * replaces. The numeric id stays; the hash changes with the content.
 */
export function diffTemplate(
  olds: TemplateOutputs,
  news: TemplateInputs,
): pulumi.dynamic.DiffResult {
  const changed = inputFields.filter((field) => !isDeepStrictEqual(olds[field], news[field]));
  return { changes: changed.length > 0, replaces: [] };
}
