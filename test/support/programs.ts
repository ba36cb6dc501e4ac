import { z } from "zod";
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { GpuCloudClient } from "../../provider/client";
import type { TestEmulator } from "./emulator";

/** Stack config pointing the provider at the emulator, with the key as a secret. */
export function emulatorConfig(emulator: TestEmulator, apiKey = emulator.apiKey): ConfigMap {
  return {
    "gpucloud:apiKey": { value: apiKey, secret: true },
    "gpucloud:baseUrl": { value: emulator.url },
  };
}

/** A client for changes "outside Pulumi", as another tool or a person would make them. */
export function outsideClient(emulator: TestEmulator): GpuCloudClient {
  return new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
}

/** A program declaring `body` (JavaScript) with `gpucloud` and `pulumi` in scope. */
export function program(body: string): string {
  return `"use strict";
const pulumi = require("@pulumi/pulumi");
const gpucloud = require("pulumi-gpucloud");
${body}
`;
}

/** Asserts that none of `needles` occurs in any of `haystacks`. */
export function expectNoLeak(haystacks: readonly string[], needles: readonly string[]): void {
  for (const needle of needles) {
    for (const haystack of haystacks) {
      expect(haystack.includes(needle) ? `leaked ${needle.length}-char secret` : "clean").toBe(
        "clean",
      );
    }
  }
}

const exportedState = z.object({
  deployment: z.object({
    resources: z
      .array(
        z.looseObject({
          type: z.string(),
          urn: z.string(),
          inputs: z.record(z.string(), z.unknown()).optional(),
          outputs: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
  }),
});
export type ExportedResource = NonNullable<
  z.infer<typeof exportedState>["deployment"]["resources"]
>[number];

/** Every resource of a `pulumi stack export` (the stack and default providers included). */
export function stateResources(exported: string): ExportedResource[] {
  return exportedState.parse(JSON.parse(exported)).deployment.resources ?? [];
}

/** The dynamic resources (ours) in a `pulumi stack export`. */
export function dynamicResources(exported: string): ExportedResource[] {
  return stateResources(exported).filter((resource) =>
    resource.type.startsWith("pulumi-nodejs:dynamic"),
  );
}

/**
 * An offer query of one 24 GB+ RTX 4090 or 3090, reliable, outside CN: what the market tests
 * rent by query (several offers of the generated markets match it).
 */
export const singleGpuQuery = {
  gpuName: { in: ["RTX 4090", "RTX 3090"] },
  numGpus: 1,
  gpuRamGb: { gte: 24 },
  reliability: { gte: 0.98 },
  geolocation: { notin: ["CN"] },
};
