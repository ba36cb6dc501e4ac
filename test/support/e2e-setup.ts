// Whole `pulumi up` / `destroy` runs: a generous ceiling against hangs, not a timing goal.
jest.setTimeout(600_000);
