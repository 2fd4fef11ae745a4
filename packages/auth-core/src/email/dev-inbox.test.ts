import { describe, expect, expectTypeOf, it } from "vitest";
import type { SmsTransport } from "../sms/sms-transport.js";
import { createDevInbox } from "./dev-inbox.js";
import type { EmailTransport } from "./email-transport.js";

function fixture(options: { limit?: number } = {}) {
  const lines: string[] = [];
  let clock = Date.parse("2025-01-02T03:04:05.000Z");
  const inbox = createDevInbox({
    ...options,
    log: (line) => lines.push(line),
    now: () => {
      clock += 1000;
      return clock;
    },
  });
  return { inbox, lines };
}

const email = {
  to: "ada@example.com",
  from: "svc <no-reply@localhost>",
  subject: "Your sign-in code",
  body: "Your sign-in code is 123456\n\nIt expires in 10 minutes.",
};

describe("createDevInbox", () => {
  it("serves as both an email and an SMS transport", () => {
    expectTypeOf(createDevInbox()).toExtend<EmailTransport & SmsTransport>();
    expect(createDevInbox().name).toBe("dev-inbox");
  });

  it("keeps emails and texts, newest first, with the injected clock's time", async () => {
    const { inbox } = fixture();
    await inbox.send(email);
    await inbox.sendSms({ to: "+14155550100", body: "Your sign-in code is 654321" });

    expect(inbox.messages()).toEqual([
      {
        channel: "sms",
        to: "+14155550100",
        body: "Your sign-in code is 654321",
        sent_at: "2025-01-02T03:04:07.000Z",
      },
      {
        channel: "email",
        to: "ada@example.com",
        from: "svc <no-reply@localhost>",
        subject: "Your sign-in code",
        body: email.body,
        sent_at: "2025-01-02T03:04:06.000Z",
      },
    ]);
  });

  it("logs one line per message with the body's first line, where the code is", async () => {
    const { inbox, lines } = fixture();
    await inbox.send(email);
    await inbox.sendSms({ to: "+14155550100", body: "\n  Code 654321  \nsecond line" });
    expect(lines).toEqual([
      'svc: dev inbox: email to ada@example.com "Your sign-in code": Your sign-in code is 123456',
      "svc: dev inbox: sms to +14155550100: Code 654321",
    ]);
  });

  it("cannot be made to forge log lines through the recipient or subject", async () => {
    const { inbox, lines } = fixture();
    await inbox.send({ ...email, to: "a@b.c\nsvc: fake line", subject: 'x"\ny' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("\n");
    expect(lines[0]).toBe(
      'svc: dev inbox: email to a@b.c svc: fake line "x\\"\\ny": Your sign-in code is 123456',
    );
  });

  it("drops the oldest messages past the limit", async () => {
    const { inbox } = fixture({ limit: 3 });
    for (const n of [1, 2, 3, 4, 5]) {
      await inbox.sendSms({ to: "+14155550100", body: `message ${n}` });
    }
    expect(inbox.messages().map((message) => message.body)).toEqual([
      "message 5",
      "message 4",
      "message 3",
    ]);
  });

  it("keeps 100 messages by default", async () => {
    const { inbox } = fixture();
    for (let n = 0; n < 105; n++) await inbox.sendSms({ to: "+14155550100", body: `m${n}` });
    expect(inbox.messages()).toHaveLength(100);
    expect(inbox.messages()[99]?.body).toBe("m5");
  });

  it("hands out a copy and forgets everything on clear", async () => {
    const { inbox } = fixture();
    await inbox.send(email);
    const snapshot = inbox.messages();
    inbox.clear();
    expect(inbox.messages()).toEqual([]);
    expect(snapshot).toHaveLength(1);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses the limit %s", (limit) => {
    expect(() => createDevInbox({ limit })).toThrow(RangeError);
  });
});
