import type * as pulumi from "@pulumi/pulumi";
import type { Run } from "../run/run";

/**
 * A resource's one implementation, as both doors call it: each method of a Pulumi resource
 * provider, given the run it belongs to (provider/run/run.ts). The dynamic door binds it to its
 * process's run (provider/provider-runtime.ts `dynamicProvider`), the native plugin to the run
 * its Configure made (provider/native/server.ts). `read` returns the resource's inputs typed as
 * inputs (the SDK types them as outputs); `update` is absent where every change replaces.
 */
export interface ResourceImplementation<Inputs, Outputs> {
  check(run: Run, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult<Inputs>>;
  diff(run: Run, id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.DiffResult>;
  create(run: Run, inputs: Inputs): Promise<pulumi.dynamic.CreateResult<Outputs>>;
  read(
    run: Run,
    id: string,
    props?: Outputs,
  ): Promise<{ id?: string; props?: Outputs; inputs?: Inputs }>;
  update?(
    run: Run,
    id: string,
    olds: Outputs,
    news: Inputs,
  ): Promise<pulumi.dynamic.UpdateResult<Outputs>>;
  delete(run: Run, id: string, props: Outputs): Promise<void>;
}
