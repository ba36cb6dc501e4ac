import type { FaultInjector } from "../control/faults";
import type { Clock } from "../shared/clock";
import { addInstance } from "../instances/instance-create";
import type { Instance } from "../instances/instance-state";
import { stop } from "../instances/lifecycle";
import { BUNDLE_SEARCH, findInstanceOffers } from "../market/offer-search";
import type { EmulatorSettings } from "../options";
import { parseLaunchArgs } from "../shared/docker-flags";
import { parseQuery } from "../shared/query";
import type { State } from "../shared/state";
import type { Store } from "../shared/store";
import { findVisibleTemplate, noteLaunch, templateDefaults } from "../templates/template-launch";
import type { WorkerGroup } from "./serverless-state";

/** A worker's image when neither its template nor its launch_args name one (the API's default). */
const DEFAULT_WORKER_IMAGE = "vastai/base-image:@vastai-automatic-tag";
const DEFAULT_WORKER_DISK_GB = 8;

export interface ReleaseOutcome {
  deleted: number[];
  failed: number[];
}

const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

/** Workers the group keeps (not those being released). */
export function activeWorkers(state: State, groupId: number): Instance[] {
  return state.instances.filter((i) => i.workerGroupId === groupId && i.releaseAtMs === null);
}

/**
 * The serverless engine: each worker group keeps its cold workers (its own `cold_workers`, else
 * its endpoint's), within its own `max_workers` and its endpoint's (shared by the endpoint's
 * groups in id order), rented on demand from the market by the group's search query, cheapest
 * first. Released workers leave the account after the release delay.
 */
export class ServerlessEngine {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: Store,
    private readonly settings: EmulatorSettings,
    private readonly faults: FaultInjector,
    /** The account's time: releases come due by it (shared/clock.ts). */
    private readonly clock: Clock,
  ) {
    // Workers a previous run was releasing (state file) go when their time comes.
    const pending = store.state.instances.filter((i) => i.releaseAtMs !== null);
    for (const instance of pending) this.schedule((instance.releaseAtMs ?? 0) - clock.nowMs());
  }

  /** Brings every group to its number of workers; call within a store change. */
  reconcile(state: State): void {
    for (const endpoint of [...state.endpoints].sort(byId)) {
      let room = endpoint.maxWorkers;
      const groups = state.workerGroups.filter((g) => g.endpointId === endpoint.id).sort(byId);
      for (const group of groups) {
        const wanted = Math.max(
          0,
          Math.min(group.coldWorkers ?? endpoint.coldWorkers, group.maxWorkers ?? room, room),
        );
        const workers = activeWorkers(state, group.id);
        if (workers.length < wanted) this.rent(state, group, wanted - workers.length);
        if (workers.length > wanted) {
          const extra = workers.sort(byId).slice(wanted);
          this.releaseWorkers(extra, false);
        }
        room -= activeWorkers(state, group.id).length;
      }
    }
  }

  /** Releases a group's workers (a group or endpoint deletion); call within a store change. */
  releaseGroup(state: State, groupId: number): ReleaseOutcome {
    const workers = state.instances.filter((i) => i.workerGroupId === groupId).sort(byId);
    return this.releaseWorkers(workers, true);
  }

  /** Removes released workers whose time has come; true when any went. */
  sweep(state: State, nowMs: number): boolean {
    const gone = new Set(
      state.instances
        .filter((i) => i.releaseAtMs !== null && i.releaseAtMs <= nowMs)
        .map((i) => i.id),
    );
    if (gone.size === 0) return false;
    state.instances = state.instances.filter((i) => !gone.has(i.id));
    state.copies = state.copies.filter(
      (c) => !gone.has(c.dstInstanceId) && (c.srcInstanceId === null || !gone.has(c.srcInstanceId)),
    );
    return true;
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private releaseWorkers(workers: Instance[], faultable: boolean): ReleaseOutcome {
    const outcome: ReleaseOutcome = { deleted: [], failed: [] };
    const delayMs = this.settings.workerReleaseSeconds * 1000;
    const releaseAtMs = this.clock.nowMs() + delayMs;
    for (const worker of workers) {
      if (faultable && this.faults.takeWorkerReleaseFailure()) {
        // Left running on the account, no longer the group's: the caller must destroy it.
        worker.workerGroupId = null;
        outcome.failed.push(worker.id);
        continue;
      }
      worker.releaseAtMs ??= releaseAtMs;
      stop(worker);
      outcome.deleted.push(worker.id);
    }
    if (outcome.deleted.length > 0) this.schedule(delayMs);
    return outcome;
  }

  private schedule(delayMs: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        const state = this.store.state;
        const nowMs = this.clock.nowMs();
        if (state.instances.some((i) => i.releaseAtMs !== null && i.releaseAtMs <= nowMs)) {
          this.store.mutate((s) => this.sweep(s, nowMs));
        }
      },
      Math.max(0, delayMs),
    );
    timer.unref();
    this.timers.add(timer);
  }

  private rent(state: State, group: WorkerGroup, count: number): void {
    // By its numeric id, which an edit keeps (the hash changes with the content).
    const template =
      group.templateId !== null
        ? findVisibleTemplate(state, { id: group.templateId })
        : group.templateHash !== null
          ? findVisibleTemplate(state, { hashId: group.templateHash })
          : undefined;
    const base = template ? templateDefaults(template) : undefined;
    const launch = parseLaunchArgs(group.launchArgs);
    const diskGb = launch.diskGb ?? base?.diskGb ?? DEFAULT_WORKER_DISK_GB;
    const query = parseQuery(group.searchQuery, BUNDLE_SEARCH);
    const ordered =
      query.order.length > 0 ? query : { ...query, order: [["dph_total", "asc"]] as const };
    for (let n = 0; n < count; n++) {
      // Searched again for each worker: with a market, each rent takes its ask.
      const offer = findInstanceOffers(state, this.settings, ordered).find(
        ({ ask }) => ask.diskGb >= diskGb,
      );
      if (offer === undefined) return; // the market has no more: fewer workers for now
      const nowMs = this.clock.nowMs();
      if (template) noteLaunch(template, nowMs);
      addInstance(
        state,
        this.settings,
        offer.ask,
        {
          image: launch.image ?? base?.image ?? DEFAULT_WORKER_IMAGE,
          diskGb,
          onstart: launch.onstart ?? base?.onstart ?? null,
          args: [],
          env: { ...base?.env, ...launch.env },
          label: null,
          runtype: base?.runtype ?? "ssh",
          bidDollarsPerHour: null,
          imageLogin: base?.imageLogin ?? null,
          volume: null,
          mounts: [],
          overlay: null,
          template: base?.template ?? null,
          workerGroupId: group.id,
        },
        nowMs,
      );
    }
  }
}
