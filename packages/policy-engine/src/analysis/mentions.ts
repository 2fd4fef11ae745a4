import type { CompiledPolicies, Condition, FieldInfo, Operand } from "../condition.js";

/** What a field's values are compared with, across every rule searched. */
export interface FieldMentions {
  readonly field: FieldInfo;
  /** Literals compared with it (or with a field it is compared with). */
  readonly literals: Set<string | number | boolean>;
  /** Compared with `auth.userId` (directly or through another field). */
  userish: boolean;
  /** Compared with `auth.tenantId` (directly or through another field). */
  tenantish: boolean;
  /** Tested against `null`, or optional and read at all. */
  nullable: boolean;
  /** Ordered (`<`, `<=`, `>`, `>=`) against something. */
  ordered: boolean;
}

/** Everything the rules mention: the vocabulary the bounded search is built from. */
export interface Mentions {
  /** `<Entity>.<field>` to what it is compared with; fields read by some rule only. */
  readonly fields: Map<string, FieldMentions>;
  readonly userLiterals: Set<string>;
  readonly tenantLiterals: Set<string>;
  readonly roles: Set<string>;
  readonly entitlements: Set<string>;
  isGuest: boolean;
  tenant: boolean;
}

export const fieldKey = (entity: string, name: string): string => `${entity}.${name}`;

function emptyMentions(): Mentions {
  return {
    fields: new Map(),
    userLiterals: new Set(),
    tenantLiterals: new Set(),
    roles: new Set(),
    entitlements: new Set(),
    isGuest: false,
    tenant: false,
  };
}

class Collector {
  readonly mentions = emptyMentions();
  /** Union-find over field keys: fields compared with each other share values. */
  private readonly parent = new Map<string, string>();

  field(info: FieldInfo): FieldMentions {
    const key = fieldKey(info.entity, info.name);
    let found = this.mentions.fields.get(key);
    if (found === undefined) {
      found = {
        field: info,
        literals: new Set(),
        userish: false,
        tenantish: false,
        nullable: info.nullable,
        ordered: false,
      };
      this.mentions.fields.set(key, found);
      this.parent.set(key, key);
    }
    return found;
  }

  private root(key: string): string {
    let at = key;
    while (this.parent.get(at) !== at) at = this.parent.get(at) ?? at;
    return at;
  }

  link(a: FieldInfo, b: FieldInfo): void {
    this.field(a);
    this.field(b);
    this.parent.set(this.root(fieldKey(a.entity, a.name)), this.root(fieldKey(b.entity, b.name)));
  }

  /** One side against the other; `op` tells ordering from equality. */
  pair(left: Operand, right: Operand, ordered: boolean): void {
    for (const [a, b] of [
      [left, right],
      [right, left],
    ] as const) {
      if (a.kind === "auth" && b.kind === "literal" && typeof b.value === "string") {
        if (a.name === "userId") this.mentions.userLiterals.add(b.value);
        if (a.name === "tenantId") this.mentions.tenantLiterals.add(b.value);
      }
      if (a.kind !== "field" || a.scope === "room") continue;
      const mentioned = this.field(a.field);
      if (ordered) mentioned.ordered = true;
      if (b.kind === "literal") {
        if (b.value === null) mentioned.nullable = true;
        else mentioned.literals.add(b.value);
      } else if (b.kind === "auth" && b.name === "userId") mentioned.userish = true;
      else if (b.kind === "auth" && b.name === "tenantId") mentioned.tenantish = true;
      else if (b.kind === "field" && b.scope !== "room") this.link(a.field, b.field);
    }
  }

  operand(operand: Operand): void {
    switch (operand.kind) {
      case "role":
        this.mentions.roles.add(operand.role);
        return;
      case "entitlement":
        this.mentions.entitlements.add(operand.entitlement);
        return;
      case "auth":
        if (operand.name === "isGuest") this.mentions.isGuest = true;
        if (operand.name === "tenantId") this.mentions.tenant = true;
        return;
      case "field":
        if (operand.scope !== "room") this.field(operand.field);
        return;
      default:
        return;
    }
  }

  condition(condition: Condition): void {
    switch (condition.kind) {
      case "compare":
        this.operand(condition.left);
        this.operand(condition.right);
        this.pair(condition.left, condition.right, condition.op !== "==" && condition.op !== "!=");
        return;
      case "truthy":
        this.operand(condition.operand);
        return;
      case "not":
        this.condition(condition.item);
        return;
      case "and":
      case "or":
        for (const item of condition.items) this.condition(item);
        return;
      case "exists":
        for (const { field, value } of condition.conditions) {
          this.operand(value);
          this.pair(
            { kind: "field", scope: "data", field, span: { start: 0, end: 0 } },
            value,
            false,
          );
        }
        return;
    }
  }

  /** Shares literals and flags within each group of linked fields. */
  finish(): Mentions {
    const groups = new Map<string, FieldMentions[]>();
    for (const key of this.mentions.fields.keys()) {
      const root = this.root(key);
      const group = groups.get(root) ?? [];
      group.push(this.mentions.fields.get(key) as FieldMentions);
      groups.set(root, group);
    }
    for (const group of groups.values()) {
      const userish = group.some((m) => m.userish);
      const tenantish = group.some((m) => m.tenantish);
      const literals = new Set(group.flatMap((m) => [...m.literals]));
      const ordered = group.some((m) => m.ordered);
      for (const member of group) {
        member.userish = userish;
        member.tenantish = tenantish;
        member.ordered = member.ordered || ordered;
        for (const literal of literals) member.literals.add(literal);
      }
    }
    return this.mentions;
  }
}

/**
 * Walks every rule of the given policies (and any extra rules, such as a
 * claim) and collects what they mention: fields and what they are compared
 * with, `auth.userId` and `auth.tenantId` literals, roles, entitlements.
 */
export function collectMentions(
  policies: readonly CompiledPolicies[],
  extra: readonly Condition[] = [],
): Mentions {
  const collector = new Collector();
  for (const compiled of policies) {
    for (const actions of compiled.rules.values()) {
      for (const rules of Object.values(actions)) {
        for (const rule of rules) collector.condition(rule.condition);
      }
    }
  }
  for (const condition of extra) collector.condition(condition);
  return collector.finish();
}
