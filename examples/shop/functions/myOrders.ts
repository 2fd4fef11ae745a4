import { query } from "@svc/functions";
import { z } from "zod";

/** The caller's orders, newest first, each with its lines, one page at a time. */
export default query({
  args: {
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(50).default(10),
  },
  handler: async (ctx, args) => {
    const page = await ctx.db.query("Order", {
      orderBy: { field: "createdAt", direction: "desc" },
      limit: args.limit,
      ...(args.cursor !== undefined && { cursor: args.cursor }),
    });
    const orders = await Promise.all(
      page.rows.map(async (order) => {
        const items = await ctx.db.query("OrderItem", {
          where: { orderId: order.id },
          limit: 1000,
        });
        return {
          id: order.id,
          status: String(order.status),
          totalCents: Number(order.totalCents),
          itemCount: Number(order.itemCount),
          createdAt: String(order.createdAt),
          items: items.rows.map((item) => ({
            productId: String(item.productId),
            name: String(item.productName),
            quantity: Number(item.quantity),
            unitPriceCents: Number(item.unitPriceCents),
          })),
        };
      }),
    );
    return { orders, nextCursor: page.nextCursor };
  },
});
