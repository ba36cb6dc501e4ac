import { portsShownBy } from "../../renting/ports";
import { waitUntilReady } from "../../renting/readiness";
import type { Readiness } from "../../renting/readiness-inputs";
import type { Run } from "../../run/run";
import type { GroupNode } from "./inputs";

/** What of a group's build (create.ts) the wait reads, and its nodes, which it updates. */
interface GroupWait {
  readonly run: Run;
  readonly inputs: { readonly readiness?: Readiness | undefined };
  readonly nodes: Map<number, GroupNode>;
  readonly deadlineMs: number;
  readonly progress: (message: string) => void;
}

/**
 * With `readiness`: waits for the check of every node given at once, once all of them run. A
 * node's app may answer only when its peers have joined (rank 0 of a distributed server), so no
 * rank waits for its own check before the others are rented. The first node that does not pass
 * stops the others' checks and fails the group, whose create then takes it apart. Each ready
 * node's ports are those the service showed when it passed (it maps them after `running`).
 */
export async function awaitNodesReady(build: GroupWait, ranks: readonly number[]): Promise<void> {
  const { readiness } = build.inputs;
  if (readiness === undefined) return;
  const nodeFailed = new AbortController();
  const signal = AbortSignal.any([build.run.cancellation.signal, nodeFailed.signal]);
  const failures = await Promise.all(
    ranks.map(async (rank): Promise<string | undefined> => {
      const node = build.nodes.get(rank);
      if (node === undefined) return undefined;
      const named = `rank ${rank} (instance ${node.instanceId})`;
      const running = await build.run.client.instances.show(node.instanceId, signal);
      const outcome =
        running === undefined
          ? ({ kind: "not ready", answer: "the instance is gone" } as const)
          : await waitUntilReady(
              {
                client: build.run.client,
                instanceId: node.instanceId,
                readiness,
                deadlineMs: build.deadlineMs,
                signal,
                progress: build.progress,
              },
              running,
            );
      if (outcome.kind === "ready") {
        build.nodes.set(rank, { ...node, ...portsShownBy(outcome.instance) });
        return undefined;
      }
      // Stopped because another node failed: that one says why.
      if (outcome.kind === "cancelled") return nodeFailed.signal.aborted ? undefined : "cancelled";
      nodeFailed.abort();
      return `${named} not ready; the last check answered: ${outcome.answer}`;
    }),
  );
  const failure = failures.find((why) => why !== undefined);
  if (failure === "cancelled") throw new Error("cancelled while the nodes' readiness was awaited");
  if (failure !== undefined) throw new Error(failure);
}
