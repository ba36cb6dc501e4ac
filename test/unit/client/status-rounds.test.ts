import { StatusRounds } from "../../../provider/client/status-rounds";

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
  it("reads every waiter of a round with a list of 25 ids a request, and shows only the unlisted", async () => {
    const { rounds, lists, shows } = fakeRounds((id) => id !== 7);
    const ids = Array.from({ length: 60 }, (_, n) => n + 1);
    const rows = await Promise.all(ids.map((id) => rounds.next(id, 50)));
    expect(lists.map((chunk) => chunk.length)).toEqual([25, 25, 10]);
    expect(shows).toEqual([7]);
    expect(rows[6]).toBeUndefined();
    expect(rows.filter((row) => row !== undefined)).toHaveLength(59);
  });

  it("answers each page's waiters as its list arrives, before the round's next page", async () => {
    let openSecondPage: () => void = () => undefined;
    const secondPage = new Promise<void>((resolve) => (openSecondPage = resolve));
    const lists: number[][] = [];
    const rounds = new StatusRounds<Row>(
      async (ids) => {
        lists.push(ids);
        if (lists.length === 2) await secondPage;
        return ids.map((id) => ({ id, round: 1 }));
      },
      async () => undefined,
    );
    const ids = Array.from({ length: 30 }, (_, n) => n + 1);
    const waits = ids.map((id) => rounds.next(id, 50));
    // The first page's 25 are answered while the second page's list is still unanswered.
    const firstPage = await Promise.all(waits.slice(0, 25));
    expect(firstPage.map((row) => row?.id)).toEqual(ids.slice(0, 25));
    expect(lists.map((page) => page.length)).toEqual([25, 5]);
    openSecondPage();
    expect((await Promise.all(waits.slice(25))).map((row) => row?.id)).toEqual(ids.slice(25));
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
