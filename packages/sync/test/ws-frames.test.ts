import type {
  ClientFrame as SharedClientFrame,
  ShardClientFrame as SharedShardClientFrame,
} from "@svc/schema/live-frames";
import { describe, expectTypeOf, it } from "vitest";
import type { ClientFrame, ShardClientFrame } from "../src/index.js";

// The live protocols are defined once, in @svc/schema/live-frames; the zod
// schemas the server validates client frames with must admit exactly those
// frames. This stops compiling when either side changes alone.

/** Whether each of two types is assignable to the other (readonly aside). */
type Agree<TA, TB> = [TA] extends [TB] ? ([TB] extends [TA] ? true : false) : false;

describe("clientFrameSchema", () => {
  it("infers the shared ClientFrame", () => {
    expectTypeOf<Agree<ClientFrame, SharedClientFrame>>().toEqualTypeOf<true>();
    expectTypeOf<Agree<ClientFrame, { type: "ping"; extra: 1 }>>().toEqualTypeOf<false>();
  });
});

describe("shardClientFrameSchema", () => {
  it("infers the shared ShardClientFrame", () => {
    expectTypeOf<Agree<ShardClientFrame, SharedShardClientFrame>>().toEqualTypeOf<true>();
  });
});
