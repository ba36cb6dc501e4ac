import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineproto from "@pulumi/pulumi/proto/engine_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import type { ConfigSource } from "../run/config";
import { newStackToken } from "../renting/identity";
import { sweeperWarning } from "../renting/stack-sweeper";
import { logToEngine } from "../run/progress";
import { stackUrnOf, urnParts } from "./urns";
import { Run } from "../run/run";
import { failureField, oneLine } from "../shared/validation";
import { functionOf } from "./functions";
import { OrderedLog } from "../run/ordered-log";
import { programSpelling, type Spelling, spelledField, spelledMessage } from "./program-language";
import { type NativeResource, resourceOf } from "./resources";
import { packageSchema, type PackageSpec, secretOutputs } from "./schema";
import { unwrapSecrets, wrapSecrets } from "./secrets";
import {
  changedKeys,
  failure,
  fromStruct,
  initFailure,
  type Props,
  toStruct,
  type Unary,
  unimplemented,
} from "./wire";

/**
 * The `pulumi-resource-gpucloud` plugin: Pulumi's `ResourceProvider` gRPC service over the
 * resource modules (provider/resources), the same implementation the dynamic entries forward
 * to. This adapter translates and decides nothing: it unwraps secrets on the way in, hands the
 * module what a dynamic provider would see, and wraps the secrets again on the way out.
 */

/** The provider inputs the plugin keeps in the provider's own state (CheckConfig). */
const stackTokenKey = "stackToken";

/**
 * The version, written in by the standalone plugin's bundler (esbuild's `define`, in
 * scripts/package-plugin.mjs): a single executable has no package.json beside it. Anywhere else
 * the name is not defined at all, and `typeof` of it is "undefined".
 */
declare const GPUCLOUD_BUNDLED_VERSION: string | undefined;

/**
 * The package's version: the bundled one in the standalone plugin, else from its package.json
 * (two or three levels up, source or dist).
 */
export function packageVersion(): string {
  if (typeof GPUCLOUD_BUNDLED_VERSION === "string") return GPUCLOUD_BUNDLED_VERSION;
  let dir = __dirname;
  for (let depth = 0; depth < 5; depth += 1) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const parsed = JSON.parse(readFileSync(candidate, "utf8")) as {
        name?: string;
        version?: string;
      };
      if (parsed.name === "pulumi-gpucloud" && parsed.version) return parsed.version;
    }
    dir = dirname(dir);
  }
  return "0.0.0";
}

/** How long a display line may wait for the engine's answer before the next is sent, ms. */
const logDeadlineMs = 5_000;

export class GpuCloudProviderService {
  private readonly schema: PackageSpec;
  private readonly version: string;
  private config: Props = {};
  /** How the program names fields, for check failures: the engine starts us in its folder. */
  private readonly spelling: Spelling = programSpelling(process.cwd());
  private engine: enginerpc.EngineClient | undefined;
  /** The engine's display lines, in the order they were made. */
  private lines: OrderedLog<engineproto.LogRequest> | undefined;
  private readonly current = new AsyncLocalStorage<{ urn: string }>();
  /** The plugin's run (provider/run/run.ts): made by Configure, given to every call after. */
  #run: Run | undefined;
  /** Set by Cancel, which also stops every wait of the run (run/cancellation.ts). */
  cancelled = false;

  constructor(engineAddress: string | undefined) {
    this.version = packageVersion();
    this.schema = packageSchema(this.version);
    if (engineAddress !== undefined) this.connectEngine(engineAddress);
  }

  /**
   * The plugin's run: made by Configure, the first call that needs one (or by any call the
   * engine makes before it). Its progress goes to the row of the resource being worked on, and
   * its engine watch uses the address the process was started with, as the dynamic door's.
   */
  private currentRun(): Run {
    if (this.#run === undefined) {
      const engineAddress = process.argv[2];
      this.#run = new Run({
        engineAddress,
        progress: (message) => {
          if (!this.progress(message)) void logToEngine(message, engineAddress);
        },
        notice: (message) => {
          if (!this.progress(message, false)) void logToEngine(message, engineAddress);
        },
        stackStatus: (message) => {
          const urn = this.current.getStore()?.urn;
          if (urn === undefined || this.lines === undefined) {
            void logToEngine(message, engineAddress, { ephemeral: true });
          } else this.line(stackUrnOf(urn), message, engineproto.LogSeverity.INFO, true);
        },
        currentResource: () => this.current.getStore()?.urn,
      });
      if (this.cancelled) this.#run.cancellation.cancel();
    }
    return this.#run;
  }

  private connectEngine(address: string): void {
    this.engine?.close();
    const engine = new enginerpc.EngineClient(address, grpc.credentials.createInsecure());
    this.engine = engine;
    this.lines = new OrderedLog((request: engineproto.LogRequest, done) => {
      // A line the engine does not answer within the deadline no longer holds up the next.
      const deadline = Date.now() + logDeadlineMs;
      engine.log(request, new grpc.Metadata(), { deadline }, () => {
        done();
      });
    });
  }

  /**
   * A line on the row of the resource being worked on: ephemeral (a status) for progress; not
   * for the plan's prices, which stay in the display and in `--json`'s diagnostics.
   */
  private progress(message: string, ephemeral = true): boolean {
    const urn = this.current.getStore()?.urn;
    if (this.lines === undefined || urn === undefined) return false;
    this.line(urn, message, engineproto.LogSeverity.INFO, ephemeral);
    return true;
  }

  /** A line on the row of `urn`; a warning shows in the engine's Diagnostics too. */
  private line(urn: string, message: string, severity: engineproto.LogSeverity, ephemeral = false) {
    if (this.lines === undefined) {
      void logToEngine(message, process.argv[2]);
      return;
    }
    const request = new engineproto.LogRequest();
    request.setSeverity(severity);
    request.setMessage(`gpucloud: ${message}`);
    request.setUrn(urn);
    request.setEphemeral(ephemeral);
    this.lines.log(request);
  }

  private resource(type: string, urn: string): NativeResource {
    const token = type || urnParts(urn).type;
    const found = resourceOf(token);
    if (found === undefined) throw new Error(`unknown resource type ${token}`);
    return found;
  }

  /** Secret outputs of a type: every property the schema marks, and those that arrived secret. */
  private secretsOf(resource: NativeResource, arrived: Iterable<string>): Set<string> {
    return new Set([...secretOutputs(this.schema, `gpucloud:index:${resource.type}`), ...arrived]);
  }

  /** What the TypeScript class adds to the program's inputs (resources.ts, `fill`). */
  private fill(resource: NativeResource, urn: string, news: Props): Props {
    const { project, stack, name } = urnParts(urn);
    const token = this.config[stackTokenKey];
    return resource.fill(news, {
      project,
      stack,
      name,
      stackToken: typeof token === "string" ? token : undefined,
    });
  }

  /** Runs `work` as the work on the resource `urn` (whose row its progress lines go to). */
  private async onResource<T>(urn: string, work: () => Promise<T>): Promise<T> {
    try {
      return await this.current.run({ urn }, work);
    } finally {
      // The lines the work made reach the engine before its answer: sent one at a time, the
      // last ones could otherwise arrive after the engine ended the step and be lost (a
      // refresh naming three leftovers showed two).
      await this.lines?.flushed();
    }
  }

  /** Each gRPC method, as grpc-js calls it. */
  handlers(): grpc.UntypedServiceImplementation {
    const unary =
      <Req, Res>(work: (request: Req) => Promise<Res>): Unary<Req, Res> =>
      (call, callback) => {
        work(call.request).then(
          (response) => {
            callback(null, response);
          },
          (error: unknown) => {
            callback(failure(error), null);
          },
        );
      };

    return {
      getPluginInfo: unary(async () => {
        const info = new plugproto.PluginInfo();
        info.setVersion(this.version);
        return info;
      }),

      getSchema: unary(async (request: provproto.GetSchemaRequest) => {
        if (request.getSubpackageName()) {
          throw new Error(`no sub-package ${request.getSubpackageName()}`);
        }
        const response = new provproto.GetSchemaResponse();
        response.setSchema(JSON.stringify(this.schema));
        return response;
      }),

      /**
       * The provider's inputs, with its stack token: made once, when the provider is first
       * checked, and kept in the provider's state (olds) from then on.
       */
      checkConfig: unary(async (request: provproto.CheckRequest) => {
        const olds = unwrapSecrets(fromStruct(request.getOlds()));
        const news = unwrapSecrets(fromStruct(request.getNews()));
        const token = olds.props[stackTokenKey] ?? news.props[stackTokenKey] ?? newStackToken();
        const inputs = { ...news.props, [stackTokenKey]: token };
        const response = new provproto.CheckResponse();
        response.setInputs(toStruct(wrapSecrets(inputs, new Set([...news.secret, "apiKey"]))));
        return response;
      }),

      /** A new address or key changes the provider in place: nothing it manages is replaced. */
      diffConfig: unary(async (request: provproto.DiffRequest) => {
        const olds = unwrapSecrets(fromStruct(request.getOldInputs() ?? request.getOlds())).props;
        const news = unwrapSecrets(fromStruct(request.getNews())).props;
        const diffs = changedKeys(olds, news).filter((key) => key !== stackTokenKey);
        const response = new provproto.DiffResponse();
        response.setChanges(
          diffs.length > 0
            ? provproto.DiffResponse.DiffChanges.DIFF_SOME
            : provproto.DiffResponse.DiffChanges.DIFF_NONE,
        );
        response.setDiffsList(diffs);
        return response;
      }),

      configure: unary(async (request: provproto.ConfigureRequest) => {
        const args = unwrapSecrets(fromStruct(request.getArgs())).props;
        const variables = request.getVariablesMap();
        const source: ConfigSource = {
          get: (key) => {
            const name = key.replace(/^gpucloud:/, "");
            const value = args[name] ?? variables.get(`gpucloud:config:${name}`);
            // A number-typed setting (maxDollarsPerHour) arrives as a number from a program.
            if (typeof value === "number") return String(value);
            return typeof value === "string" && value !== "" ? value : undefined;
          },
        };
        this.config = args;
        this.currentRun().configure(source);
        const response = new provproto.ConfigureResponse();
        response.setAcceptsecrets(true);
        response.setSupportspreview(false);
        response.setAcceptresources(false);
        response.setAcceptoutputs(false);
        return response;
      }),

      check: unary(async (request: provproto.CheckRequest) => {
        const urn = request.getUrn();
        const resource = this.resource(request.getType(), urn);
        const olds = unwrapSecrets(fromStruct(request.getOlds()));
        const news = unwrapSecrets(fromStruct(request.getNews()));
        const result = await this.onResource(urn, () =>
          resource.implementation.check(
            this.currentRun(),
            olds.props,
            this.fill(resource, urn, news.props),
          ),
        );
        // A resource that fails its check has its error to show, and nothing to rent.
        const failed = (result.failures ?? []).length > 0;
        const unguarded = failed
          ? undefined
          : sweeperWarning(this.currentRun(), resource.type, resource.rentsInstances);
        if (unguarded !== undefined) this.line(urn, unguarded, engineproto.LogSeverity.WARNING);
        const response = new provproto.CheckResponse();
        const inputs = result.inputs ?? news.props;
        response.setInputs(toStruct(wrapSecrets(inputs, this.secretsOf(resource, news.secret))));
        response.setFailuresList(
          (result.failures ?? []).map((failed) => {
            const checkFailure = new provproto.CheckFailure();
            checkFailure.setProperty(failed.property);
            // The field as the program wrote it (disk_gb from Python): see program-language.ts.
            const named = failureField(failed);
            checkFailure.setReason(
              named === undefined
                ? failed.reason
                : oneLine(
                    `${spelledField(named.field, this.spelling)}: ` +
                      spelledMessage(named.message, this.spelling),
                  ),
            );
            return checkFailure;
          }),
        );
        return response;
      }),

      diff: unary(async (request: provproto.DiffRequest) => {
        const urn = request.getUrn();
        const resource = this.resource(request.getType(), urn);
        const olds = unwrapSecrets(fromStruct(request.getOlds())).props;
        const oldInputs = unwrapSecrets(fromStruct(request.getOldInputs())).props;
        const news = unwrapSecrets(fromStruct(request.getNews())).props;
        const result = await this.onResource(urn, () =>
          resource.implementation.diff(this.currentRun(), request.getId(), olds, news),
        );
        const response = new provproto.DiffResponse();
        const { DiffChanges } = provproto.DiffResponse;
        response.setChanges(
          result.changes === true
            ? DiffChanges.DIFF_SOME
            : result.changes === false
              ? DiffChanges.DIFF_NONE
              : DiffChanges.DIFF_UNKNOWN,
        );
        const replaces = result.replaces ?? [];
        response.setReplacesList(replaces);
        if (result.changes === true) {
          const inputsBefore = Object.keys(oldInputs).length > 0 ? oldInputs : olds;
          const changed = changedKeys(inputsBefore, news).filter(
            (key) => key in news || key in oldInputs,
          );
          response.setDiffsList([...new Set([...replaces, ...changed])]);
        }
        if (result.deleteBeforeReplace) response.setDeletebeforereplace(true);
        return response;
      }),

      create: unary(async (request: provproto.CreateRequest) => {
        const urn = request.getUrn();
        const resource = this.resource(request.getType(), urn);
        const inputs = unwrapSecrets(fromStruct(request.getProperties()));
        const secret = this.secretsOf(resource, inputs.secret);
        const result = await this.onResource(urn, () =>
          resource.implementation.create(this.currentRun(), inputs.props),
        ).catch((error: unknown) => {
          throw initFailure(error, (props) => wrapSecrets(props, secret));
        });
        const response = new provproto.CreateResponse();
        response.setId(result.id);
        response.setProperties(toStruct(wrapSecrets(result.outs ?? {}, secret)));
        return response;
      }),

      read: unary(async (request: provproto.ReadRequest) => {
        const urn = request.getUrn();
        const resource = this.resource(request.getType(), urn);
        const props = unwrapSecrets(fromStruct(request.getProperties()));
        const inputs = unwrapSecrets(fromStruct(request.getInputs()));
        const known = Object.keys(props.props).length > 0;
        const result = await this.onResource(urn, () =>
          resource.implementation.read(
            this.currentRun(),
            request.getId(),
            known ? props.props : undefined,
          ),
        );
        // An import reads an environment in plaintext: it may hold credentials (resources.ts).
        const secret = this.secretsOf(resource, [
          ...props.secret,
          ...inputs.secret,
          ...(known ? [] : resource.importSecrets),
        ]);
        const response = new provproto.ReadResponse();
        if (result.id === undefined || result.id === "") return response;
        response.setId(result.id);
        response.setProperties(toStruct(wrapSecrets(result.props ?? {}, secret)));
        if (result.inputs !== undefined) {
          response.setInputs(toStruct(wrapSecrets(result.inputs, secret)));
        }
        return response;
      }),

      update: unary(async (request: provproto.UpdateRequest) => {
        const urn = request.getUrn();
        const resource = this.resource(request.getType(), urn);
        const olds = unwrapSecrets(fromStruct(request.getOlds()));
        const news = unwrapSecrets(fromStruct(request.getNews()));
        const update = resource.implementation.update?.bind(resource.implementation);
        const result = update
          ? await this.onResource(urn, () =>
              update(this.currentRun(), request.getId(), olds.props, news.props),
            )
          : { outs: { ...olds.props, ...news.props } };
        const response = new provproto.UpdateResponse();
        const secret = this.secretsOf(resource, [...olds.secret, ...news.secret]);
        response.setProperties(toStruct(wrapSecrets(result.outs ?? {}, secret)));
        return response;
      }),

      delete: unary(async (request: provproto.DeleteRequest) => {
        const urn = request.getUrn();
        const resource = this.resource(request.getType(), urn);
        const props = unwrapSecrets(fromStruct(request.getProperties())).props;
        await this.onResource(urn, async () => {
          await resource.implementation.delete(this.currentRun(), request.getId(), props);
        });
        return new emptyproto.Empty();
      }),

      invoke: unary(async (request: provproto.InvokeRequest) => {
        const fn = functionOf(request.getTok());
        if (fn === undefined) throw new Error(`unknown function ${request.getTok()}`);
        const args = unwrapSecrets(fromStruct(request.getArgs()));
        const result = (await fn.run(
          this.currentRun().client,
          args.props,
          request.getPreview(),
        )) as Props;
        const response = new provproto.InvokeResponse();
        // A result computed from a secret argument is secret as a whole.
        const secret = args.secret.size > 0 ? Object.keys(result) : [];
        response.setReturn(toStruct(wrapSecrets(result, secret)));
        return response;
      }),

      /**
       * The first Ctrl-C: every wait in flight stops, and no create rents anew. An instance
       * being created ends destroyed, or recorded when it runs or cannot be destroyed in time
       * (renting/create.ts); the calls in flight then end with their errors.
       */
      cancel: unary(async () => {
        this.cancelled = true;
        this.#run?.cancellation.cancel();
        return new emptyproto.Empty();
      }),

      attach: unary(async (request: plugproto.PluginAttach) => {
        this.connectEngine(request.getAddress());
        return new emptyproto.Empty();
      }),

      handshake: unimplemented("Handshake"),
      parameterize: unimplemented("Parameterize"),
      construct: unimplemented("Construct"),
      call: unimplemented("Call"),
      getMapping: unimplemented("GetMapping"),
      getMappings: unimplemented("GetMappings"),
      list: (call: grpc.ServerWritableStream<unknown, unknown>) => {
        call.emit("error", { code: grpc.status.UNIMPLEMENTED, details: "List is not implemented" });
      },
    };
  }

  close(): void {
    this.engine?.close();
  }
}

/** The engine's address among the plugin's arguments (flags such as -v=9 come first). */
export function engineAddressOf(args: readonly string[]): string | undefined {
  return args.filter((arg) => !arg.startsWith("-") && /^[\w.[\]:-]+:\d+$/.test(arg)).at(-1);
}

/** Starts the server on a free local port and returns it (the caller prints it). */
export async function serve(
  args: readonly string[],
): Promise<{ port: number; server: grpc.Server; service: GpuCloudProviderService }> {
  const service = new GpuCloudProviderService(engineAddressOf(args));
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(provrpc.ResourceProviderService, service.handlers());
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => {
      if (error) reject(error);
      else resolve(bound);
    });
  });
  return { port, server, service };
}
