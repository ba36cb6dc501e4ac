import { isDeepStrictEqual } from "node:util";
import * as grpc from "@grpc/grpc-js";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";

// The plugin's gRPC wire: property maps as Structs, failures as gRPC statuses (an init failure
// with its details), and what the engine is told of a diff.

export type Props = Record<string, unknown>;
export type Unary<Req, Res> = (
  call: grpc.ServerUnaryCall<Req, Res>,
  callback: grpc.sendUnaryData<Res>,
) => void;

export const toStruct = (props: Props): structproto.Struct =>
  // JSON drops undefined (which a Struct cannot hold) as the dynamic provider's states do.
  structproto.Struct.fromJavaScript(
    JSON.parse(JSON.stringify(props)) as Record<string, structproto.JavaScriptValue>,
  );

export const fromStruct = (struct: structproto.Struct | undefined): Props =>
  struct?.toJavaScript() ?? {};

/** A failure whose gRPC status is made already (an initialization failure, below). */
export class StatusFailure extends Error {
  constructor(readonly status: Partial<grpc.StatusObject>) {
    super(status.details);
  }
}

export function failure(error: unknown): Partial<grpc.StatusObject> {
  if (error instanceof StatusFailure) return error.status;
  const message = error instanceof Error ? error.message : String(error);
  return { code: grpc.status.UNKNOWN, details: message };
}

/**
 * A create that made something and failed to finish it (the modules throw an error carrying
 * `id`, `properties` and `reasons`, e.g. InstanceLeftBehindError): the engine records it with
 * init errors, as the SDK's dynamic provider tells it, by an ErrorResourceInitFailed in the
 * status details (`grpc-status-details-bin`). Other errors are returned as they are.
 */
export function initFailure(error: unknown, wrap: (props: Props) => Props): unknown {
  const made = error as {
    id?: unknown;
    properties?: unknown;
    reasons?: unknown;
    message?: unknown;
  };
  if (typeof made !== "object" || made === null || typeof made.id !== "string" || !made.id) {
    return error;
  }
  const message = typeof made.message === "string" ? made.message : String(error);
  const detail = new provproto.ErrorResourceInitFailed();
  detail.setId(made.id);
  detail.setProperties(toStruct(wrap((made.properties ?? {}) as Props)));
  detail.setReasonsList(
    Array.isArray(made.reasons) ? made.reasons.map((reason) => String(reason)) : [message],
  );
  const details = new anyproto.Any();
  details.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusproto.Status();
  status.setCode(grpc.status.UNKNOWN);
  status.setMessage(message);
  status.addDetails(details);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return new StatusFailure({ code: grpc.status.UNKNOWN, details: message, metadata });
}

export function unimplemented(method: string): Unary<unknown, unknown> {
  return (_call, callback) => {
    callback({ code: grpc.status.UNIMPLEMENTED, details: `${method} is not implemented` }, null);
  };
}

/** Top-level input properties whose values differ (for the engine's display and options). */
export function changedKeys(olds: Props, news: Props): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  return [...keys].filter((key) => !isDeepStrictEqual(olds[key], news[key]));
}
