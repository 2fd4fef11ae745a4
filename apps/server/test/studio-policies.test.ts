import { testDatabases } from "@svc/tooling/databases";
import { beforeEach, describe, expect, it } from "vitest";
import { isSignInForm, type StudioClient, studioPerTest, textOf } from "./studio-fixtures.js";

// The studio's policy analyses: the access matrix of an entity (kinds of
// caller × actions, with the rule that decided) and the lint findings, on
// the entity's policies page and on /studio/policies.

/** The cell of the matrix for a caller label and an action: its verdict and its text. */
function cellOf(
  html: string,
  caller: string,
  action: string,
): { verdict: string; text: string } | undefined {
  const row = new RegExp(
    `<tr><th scope="row">${caller.replace(/[()]/g, "\\$&")}</th>([\\s\\S]*?)</tr>`,
  ).exec(html)?.[1];
  const cell = new RegExp(
    `<td class="verdict-\\w+" data-action="${action}" data-verdict="(\\w+)">([\\s\\S]*?)</td>`,
  ).exec(row ?? "");
  return cell === null ? undefined : { verdict: cell[1] ?? "", text: textOf(cell[2] ?? "") };
}

describe.each(testDatabases())("the studio's policy analyses on $name", (database) => {
  const app = studioPerTest(database, { signIn: false });
  let studio: StudioClient;

  beforeEach(() => {
    studio = app.studio;
  });

  it("shows an entity's access matrix with the deciding rules, and its lint findings", async () => {
    expect(isSignInForm(await studio.get("/studio/policies"))).toBe(true);
    await studio.signIn();
    const page = await studio.get("/studio/policies/Note");
    expect(page.status).toBe(200);
    expect(page.html).toContain('<table class="matrix" data-entity="Note">');
    expect(cellOf(page.html, "anonymous", "read")).toEqual({
      verdict: "deny",
      text: expect.stringContaining(
        'denied: policy "own notes" (Note.allowRead): auth.userId == data.ownerId is false',
      ),
    });
    expect(cellOf(page.html, "user u1 (or their API key)", "read")).toEqual({
      verdict: "some",
      text: expect.stringMatching(
        /^some rows \(\d+ of \d+\)allowed by policy "own notes" \(Note.allowRead\): auth.userId == data.ownerId holds$/,
      ),
    });
    expect(cellOf(page.html, "user u1 (or their API key)", "insert")?.verdict).toBe("allow");
    expect(cellOf(page.html, "admin token", "delete")).toEqual({
      verdict: "allow",
      text: "allowallowed: the admin token bypasses every policy",
    });
    expect(page.html).toContain('<tr data-code="UNINDEXED_FILTER" data-level="warning">');
    expect(textOf(page.html)).toContain(
      'Add to the manifest: {"name":"by_ownerId","fields":["ownerId"],"unique":false}',
    );
  });

  it("lists the whole manifest's lint findings at /studio/policies, linked to each entity", async () => {
    await studio.signIn();
    const page = await studio.get("/studio/policies");
    expect(page.status).toBe(200);
    expect(page.html).toContain('<tr data-code="NO_POLICY" data-level="info">');
    expect(page.html).toContain('<a href="/studio/policies/User">User</a>');
    expect(page.html).toContain('<tr data-code="UNINDEXED_FILTER" data-level="warning">');
    // The navigation marks the page it is on.
    expect(page.html).toContain('<a href="/studio/policies" aria-current="page">Policies</a>');
  });
});
