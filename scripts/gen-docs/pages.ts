/** Every page of the reference, by file name. */
import { functionPage } from "./function-page";
import { indexPage } from "./index-page";
import { nameOf } from "./names";
import { providerPage } from "./provider-page";
import { resourcePage } from "./resource-page";
import { packageSpecSchema } from "./schema";
import { sortedByName } from "./tables";

/** Every page of the reference, by file name, from the schema `pulumi package get-schema` prints. */
export function referencePages(schema: unknown): Map<string, string> {
  const spec = packageSpecSchema.parse(schema);
  const pages: [string, string][] = [
    ["README.md", indexPage(spec)],
    ["provider.md", providerPage(spec)],
    ...Object.entries(spec.resources).map(([token, resource]): [string, string] => [
      `${nameOf(token)}.md`,
      resourcePage(spec, token, resource),
    ]),
    ...Object.entries(spec.functions).map(([token, fn]): [string, string] => [
      `${nameOf(token)}.md`,
      functionPage(spec, token, fn),
    ]),
  ];
  const files = pages.map(([file]) => file.toLowerCase());
  const clash = files.find((file, index) => files.indexOf(file) !== index);
  // Two pages whose names differ only in case would overwrite each other on macOS and Windows.
  if (clash !== undefined) throw new Error(`two reference pages are named ${clash}`);
  return new Map(sortedByName(pages));
}
