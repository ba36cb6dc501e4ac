import { docFilesOf } from "../support/doc-command-groups";
import { describeDocCommands } from "../support/docs-commands";

// README.md's ```sh test blocks, run as test/support/docs-commands.ts says: one of the
// groups of test/support/doc-command-groups.ts, a test file each, which Jest runs side by side.
describeDocCommands(docFilesOf("readme"));
