import type { z } from "zod";
import type { GpuCloudClient } from "../client";
import type { ResourceImplementation } from "./resource-implementation";

type Props = Record<string, unknown>;

/**
 * Everything the package says of one resource type, exported by the resource's own module
 * (`provider/resources/<name>.ts` exports `descriptor`). The registry (provider/registry.ts,
 * generated from the folder by `npm run gen-registry`) collects them, and every list of
 * resources is made from it: the plugin's schema and dispatch, the package's exports, the
 * dynamic entries and the tests' tables. So a new resource is its own module and nothing else
 * hand-written (docs/maintainers/adding-a-resource.md).
 */
export interface ResourceDescriptor {
  /** `gpucloud:index:<Type>`'s last part; the TypeScript class's name. */
  readonly type: string;
  /** The one implementation (check, diff, create, read, update, delete), given the run. */
  readonly implementation: ResourceImplementation<Props, Props>;
  /**
   * The zod definitions the implementation checks with: the schema is generated from them, and
   * the reference page's example is the one the inputs carry (shared/reference-examples.ts).
   */
  readonly inputs: z.ZodObject;
  readonly outputs: z.ZodObject;
  readonly description: string;
  /**
   * Inputs that the TypeScript class sets itself (never the program): absent from the schema;
   * `fill` sets them from what the engine tells the plugin.
   */
  readonly hidden: readonly string[];
  /**
   * Inputs optional in the schema though the zod definition requires them: the class defaults
   * them from the resource's name, or check allows them to be left out (an imported secret's
   * value).
   */
  readonly optional: readonly string[];
  /**
   * Inputs that may hold credentials the schema cannot mark (an environment, whose values a
   * program may give as secrets): a `pulumi import` reads them from the service in plaintext,
   * so the import records them as secrets (more secret, never less).
   */
  readonly importSecrets: readonly string[];
  /**
   * What the TypeScript class adds to the program's inputs, from the URN's parts and the
   * provider's stack token instead of the program; values already present are kept.
   */
  fill(news: Props, resource: ResourceContext): Props;
  /**
   * Whether its creates rent instances, which the stack's sweeper guards: the SDKs make it
   * depend on the sweeper, and a YAML program must (the reference's YAML declares one).
   */
  readonly rentsInstances: boolean;
  /**
   * Declared by the SDKs' own code rather than generated as a class (the stack's sweeper): the
   * schema marks it `isOverlay`, and the package exports no class of it.
   */
  readonly overlay: boolean;
  /** The types the package exports beside the class (`<Type>Args` and what it refers to). */
  readonly packageTypes: readonly string[];
  /** What the tests need to know of it; absent for what no test declares (the sweeper). */
  readonly tests: ResourceTests | undefined;
  /**
   * Test-only (the package never calls it): bad input as a new user writes it, in groups of
   * several bad fields, each of which check must refuse in one line naming it
   * (test/contract/bad-input.test.ts; a few through the engine, test/e2e/bad-input.test.ts).
   * A function, so that the keys and large values some groups hold are made only when asked.
   */
  readonly badInputs: () => readonly BadInput[];
  /**
   * Test-only: states of the resource as recorded (its outputs), from which each input is
   * changed alone to show that the schema's marks of what a change does are what the diff does
   * (test/unit/native-schema.test.ts). Made when asked, as `badInputs` is.
   */
  readonly recorded: () => readonly RecordedState[];
}

/** One bad field of a group: check must name it in a line that says what is allowed. */
export interface BadInputCase {
  /** The field, as the message names it. */
  readonly field: string;
  /** What the line must say (the field first, then what was wrong and what is allowed). */
  readonly says: RegExp;
}

/** A group of bad input: one resource's arguments with several bad fields. */
export interface BadInput {
  /** What is wrong, as the test names the group after the resource's type. */
  readonly what: string;
  /** The arguments, as a program passes them. */
  readonly args: Record<string, unknown>;
  readonly cases: readonly BadInputCase[];
  /** Values that must not appear in what is printed. */
  readonly secrets?: readonly string[];
  /** What the account holds first, made outside Pulumi. */
  readonly before?: (client: GpuCloudClient) => Promise<void>;
}

/** A recorded state, and changes of one input each to try beyond the generic one. */
export interface RecordedState {
  readonly olds: Props;
  /** Values of one input to try instead of (for "sometimes" inputs: besides) the generic change. */
  readonly changes?: Readonly<Record<string, readonly unknown[]>>;
  /**
   * Inputs whose change replaces only when the service says so (the diff searches the market):
   * no recorded state can show it; the contract tests do.
   */
  readonly serviceDecides?: readonly string[];
}

/** What the engine tells the plugin about the resource being checked. */
export interface ResourceContext {
  readonly project: string;
  readonly stack: string;
  readonly name: string;
  /** The provider's stack token (CheckConfig makes it and keeps it in the provider's state). */
  readonly stackToken: string | undefined;
}

/**
 * The account's records of one kind, as a test sees them: the emulator's state lists
 * (`sshKeys`, `instances`, ...), and `apiKeys` as the service lists them.
 */
export type AccountRecords = (kind: string) => readonly Props[];

/** How the tests find a resource of this type on the account, and one left over. */
export interface ResourceTests {
  /** The kind of record a create makes (the emulator state's list of them). */
  readonly records: string;
  /** Whether the resource with these outputs (from a stack's state) is on the account. */
  readonly isOnAccount: (outputs: Props, account: AccountRecords) => boolean;
  /** How a record left over is reported: its id unless said (a secret's key). */
  readonly identify?: (record: Props) => unknown;
  /** Whether a record of that kind is the account's own (not a public one of another user). */
  readonly isOwn?: (record: Props, account: AccountRecords) => boolean;
}

/** A descriptor, with what most resources leave out given its default. */
export function describeResource<Inputs, Outputs>(
  descriptor: Pick<
    ResourceDescriptor,
    "type" | "inputs" | "outputs" | "description" | "badInputs" | "recorded"
  > & {
    readonly implementation: ResourceImplementation<Inputs, Outputs>;
  } & Partial<
      Omit<
        ResourceDescriptor,
        "type" | "inputs" | "outputs" | "description" | "implementation" | "badInputs" | "recorded"
      >
    >,
): ResourceDescriptor {
  return {
    ...descriptor,
    // The plugin and the tests hold every resource alike: each checks its own inputs.
    implementation: descriptor.implementation as unknown as ResourceImplementation<Props, Props>,
    hidden: descriptor.hidden ?? [],
    optional: descriptor.optional ?? [],
    importSecrets: descriptor.importSecrets ?? [],
    fill: descriptor.fill ?? ((news) => news),
    rentsInstances: descriptor.rentsInstances ?? false,
    overlay: descriptor.overlay ?? false,
    packageTypes: descriptor.packageTypes ?? [],
    tests: descriptor.tests,
  };
}

/** The record of the given kind whose `field` equals the outputs' `output`. */
export const hasRecord =
  (kind: string, output: string, field = "id") =>
  (outputs: Props, account: AccountRecords): boolean =>
    outputs[output] !== undefined &&
    account(kind).some((record) => record[field] === outputs[output]);
