import { roundPage, StatusRounds } from "../../../provider/client/status-rounds";

interface Row {
  id: number;
  round: number;
}

/** Rounds over fake reads: `listed` ids are listed; a show of an unlisted id waits on `gate`. */
function fakeRounds(listed: (id: number) => boolean, gate: Promise<void> = Promise.resolve()) {
  let round = 0;
  const lists: number[][] = [];
  const shows: number[] = [];
  const rounds = new StatusRounds<Row>(
    async (ids) => {
      round += 1;
      lists.push(ids);
      return ids.filter(listed).map((id) => ({ id, round }));
    },
    async (id) => {
      shows.push(id);
      await gate;
      return undefined;
    },
  );
  return { rounds, lists, shows };
}

describe("StatusRounds", () => {
  it("reads 25 waiters a round by one list, and shows only the unlisted", async () => {
    const { rounds, lists, shows } = fakeRounds((id) => id !== 7);
    const ids = Array.from({ length: 25 }, (_, n) => n + 1);
    const rows = await Promise.all(ids.map((id) => rounds.next(id, 50)));
    expect(lists).toEqual([ids]);
    expect(shows).toEqual([7]);
    expect(rows[6]).toBeUndefined();
    expect(rows.filter((row) => row !== undefined)).toHaveLength(24);
  });

  it("with more than 25 waiting, sends one list of 25 a round; the others wait for the next", async () => {
    const { rounds, lists } = fakeRounds(() => true);
    const ids = Array.from({ length: 30 }, (_, n) => n + 1);
    // Each waiter waits again once answered, as a boot does until its instance runs.
    const waitTwice = async (id: number) => {
      const first = await rounds.next(id, 50);
      const second = await rounds.next(id, 50);
      return [first?.round, second?.round];
    };
    const answered = await Promise.all(ids.map(waitTwice));
    // 1-25; then 26-30, never read, and 1-20, waited on longest; then the rest.
    expect(lists).toEqual([
      ids.slice(0, 25),
      [...ids.slice(25), ...ids.slice(0, 20)],
      [...ids.slice(20, 25), ...ids.slice(25)],
    ]);
    expect(answered).toEqual(ids.map((id) => (id <= 20 ? [1, 2] : id <= 25 ? [1, 3] : [2, 3])));
  });

  it("reads an id never read before 25 waited on longer: a destroy's confirmation among boots", async () => {
    const { rounds, lists } = fakeRounds(() => true);
    const booting = Array.from({ length: 30 }, (_, n) => n + 1);
    const boots = booting.map(async (id) => {
      while (((await rounds.next(id, 20))?.round ?? 3) < 3);
    });
    await rounds.next(1, 20);
    const destroyed = await rounds.next(99, 20);
    expect(destroyed?.round).toBe(2);
    expect(lists[1]?.slice(0, 6)).toEqual([26, 27, 28, 29, 30, 99]);
    await Promise.all(boots);
  });

  it("reads each of 40 waiting at least every fourth round, however long the older ones wait", async () => {
    const { rounds } = fakeRounds(() => true);
    const ids = Array.from({ length: 40 }, (_, n) => n + 1);
    const readIn = new Map<number, number[]>(ids.map((id) => [id, []]));
    await Promise.all(
      ids.map(async (id) => {
        for (let round = 0; round < 16;) {
          round = (await rounds.next(id, 5))?.round ?? 0;
          readIn.get(id)?.push(round);
        }
      }),
    );
    const longestGap = (reads: number[]) =>
      Math.max(...reads.map((round, n) => round - (reads[n - 1] ?? round)));
    expect(Math.max(...ids.map((id) => longestGap(readIn.get(id) ?? [])))).toBeLessThanOrEqual(4);
  });

  it("a show that takes long holds up its own waiter only, not the next rounds", async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { rounds, shows } = fakeRounds((id) => id !== 2, gate);
    const slow = rounds.next(2, 20);
    const first = await rounds.next(1, 20);
    // Later rounds go on while the show of 2 waits; 2 is shown once, not once a round.
    const later = await rounds.next(1, 20);
    const laterStill = await rounds.next(1, 20);
    expect([first, later, laterStill].map((row) => row?.round)).toEqual([1, 2, 3]);
    expect(shows).toEqual([2]);
    open();
    expect(await slow).toBeUndefined();
  });

  it("a waiter asking for a shorter interval brings the pending round forward", async () => {
    const { rounds } = fakeRounds(() => true);
    await rounds.next(1, 60_000);
    // The next round for a 60 s waiter is a minute away; a 20 ms waiter does not wait for it.
    const patient = rounds.next(1, 60_000);
    const row = await rounds.next(2, 20);
    expect(row?.round).toBe(2);
    expect((await patient)?.round).toBe(2);
  });
});

describe("roundPage", () => {
  const waiting = (...ids: number[]) => ids.map((id) => ({ id }));

  it("takes every id when they fit one list", () => {
    expect(roundPage(waiting(1, 2, 1), new Map(), 1, 2)).toEqual(new Set([1, 2]));
  });

  it("takes those never read, then those left out of three rounds, then those waited on longest", () => {
    const watches = new Map([
      [1, { arrival: 0, lastRound: 9 }], // waited on longest, read last round
      [2, { arrival: 1, lastRound: 9 }],
      [3, { arrival: 2, lastRound: 5 }], // left out of rounds 6 to 9
      [4, { arrival: 3, lastRound: 7 }], // left out of 8 and 9 only
      [5, { arrival: 4, lastRound: 4 }], // left out of 5 to 9, longest
      [6, { arrival: 5 }], // never read
    ]);
    expect([...roundPage(waiting(1, 2, 3, 4, 5, 6), watches, 10, 5)]).toEqual([6, 5, 3, 1, 2]);
  });
});
