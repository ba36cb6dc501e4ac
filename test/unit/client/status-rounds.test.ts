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
    // One list a round: 1-25, then the 5 left over and 1-20 (waited on as long), then the rest.
    expect(lists.map((page) => page.length)).toEqual([25, 25, 10]);
    expect(lists[1]).toEqual([26, 27, 28, 29, 30, ...ids.slice(0, 20)]);
    expect(answered.slice(0, 20)).toEqual(ids.slice(0, 20).map(() => [1, 2]));
    expect(answered.slice(20, 25)).toEqual(ids.slice(20, 25).map(() => [1, 3]));
    expect(answered.slice(25)).toEqual(ids.slice(25).map(() => [2, 3]));
  });

  it("waiters of one id are read once a round and all answered", async () => {
    const { rounds, lists } = fakeRounds(() => true);
    const rows = await Promise.all([rounds.next(3, 50), rounds.next(3, 50), rounds.next(4, 50)]);
    expect(lists).toEqual([[3, 4]]);
    expect(rows.map((row) => row?.id)).toEqual([3, 3, 4]);
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
  const interval = 1_000;
  const waiter = (id: number, joinedAtMs: number) => ({ id, intervalMs: interval, joinedAtMs });

  it("takes every id when they fit one list", () => {
    const waiting = [waiter(1, 0), waiter(2, 0), waiter(1, 0)];
    expect(roundPage(waiting, new Map(), 0, 2)).toEqual(new Set([1, 2]));
  });

  it("takes the ids waited on longest: the instances rented first, which boot first", () => {
    // 4 was rented first but answered last round (it joined again at 5 s); 1 is the newest.
    const waiting = [waiter(1, 4_000), waiter(2, 4_000), waiter(3, 4_000), waiter(4, 5_000)];
    const since = new Map([
      [1, 3_000],
      [2, 2_000],
      [3, 1_000],
      [4, 0],
    ]);
    expect(roundPage(waiting, since, 6_000, 2)).toEqual(new Set([4, 3]));
  });

  it("takes first the ids not read for three intervals, longest unread first", () => {
    const waiting = [waiter(1, 9_000), waiter(2, 9_000), waiter(3, 2_000), waiter(4, 1_000)];
    const since = new Map([
      [1, 0],
      [2, 0],
      [3, 2_000],
      [4, 1_000],
    ]);
    // 3 and 4 were last read 8 and 9 s ago: both overdue, though rented after 1 and 2.
    expect([...roundPage(waiting, since, 10_000, 3)]).toEqual([4, 3, 1]);
  });
});
