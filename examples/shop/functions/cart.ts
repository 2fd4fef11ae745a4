import { query } from "@svc/functions";

/**
 * The caller's cart, oldest line first, each line with the product's
 * current name and price and its total; `available` is false when the
 * product was withdrawn or has too little stock, so checkout would fail.
 * Every line is listed (checkout buys every line, so the cart shows them
 * all, however they were added).
 */
export default query({
  handler: async (ctx) => {
    const rows = [];
    let cursor: string | null = null;
    do {
      const page = await ctx.db.query("CartItem", {
        orderBy: { field: "addedAt", direction: "asc" },
        limit: 100,
        ...(cursor !== null && { cursor }),
      });
      rows.push(...page.rows);
      cursor = page.nextCursor;
    } while (cursor !== null);
    const lines = await Promise.all(
      rows.map(async (line) => {
        const quantity = Number(line.quantity);
        // Withdrawn products are hidden by their read policy, so they look missing.
        const product = await ctx.db.get("Product", String(line.productId));
        const unitPriceCents = product === null ? 0 : Number(product.priceCents);
        return {
          id: line.id,
          productId: String(line.productId),
          name: product === null ? "No longer sold" : String(product.name),
          quantity,
          unitPriceCents,
          lineTotalCents: unitPriceCents * quantity,
          available: product !== null && Number(product.stock) >= quantity,
        };
      }),
    );
    return {
      lines,
      totalCents: lines.reduce((sum, line) => sum + line.lineTotalCents, 0),
      itemCount: lines.reduce((sum, line) => sum + line.quantity, 0),
    };
  },
});
