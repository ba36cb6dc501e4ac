import { stackOverhead } from "../support/scale";
import { describeRound, runSoak, soakBoots } from "../support/soak";

// The short version of `npm run soak` (50 resources there): the same fault rates, boot
// outcomes and checks, on fewer resources to keep the suite fast.
const resources = 20;

describe("up and destroy under throttling, read errors and dead-end boots", () => {
  it(`creates each of ${resources} resources once and leaves nothing behind`, async () => {
    const report = await runSoak({ resources, rounds: 1 });
    const [round] = report.rounds;
    if (round === undefined) throw new Error("the soak ran no round");
    process.stdout.write(`[soak] ${describeRound(round)}\n`);

    const { mix } = report;
    const { deadEnds } = soakBoots(mix.instances);
    expect(deadEnds).toBeGreaterThan(0);
    expect(round.problems).toEqual([]);
    // The same checks, spelled out for a readable failure.
    expect(round.up.resourceChanges).toEqual({ create: resources + stackOverhead(mix) });
    expect(round.up.creates).toEqual({
      secret: mix.secrets,
      webhook: mix.webhooks,
      volume: mix.volumes,
      instance: mix.instances + deadEnds,
    });
    expect(round.up.instanceDeletes).toBe(deadEnds);
    expect(round.destroy.resourceChanges).toEqual({ delete: resources + stackOverhead(mix) });
    expect(round.destroy.creates).toEqual({ secret: 0, webhook: 0, volume: 0, instance: 0 });
    // The faults did happen, and every faulted request was sent again.
    for (const phase of [round.up, round.destroy]) {
      expect(phase.traffic.tooManyRequests).toBeGreaterThan(0);
      expect(phase.traffic.serverErrors).toBeGreaterThan(0);
      expect(phase.traffic.retriesObserved).toBe(
        phase.traffic.tooManyRequests + phase.traffic.serverErrors,
      );
    }
  });
});
