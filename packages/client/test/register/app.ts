// Compiled on its own by test/register.test.ts: an app that registers its
// Api gets the React hooks checked against it. Every `@ts-expect-error`
// must meet an error (an unused one fails the compile).
import { useLiveQuery, useMutation, useQuery } from "../../src/react/index.js";

// What `declare module "@svc/client"` means in an app: the package's entry.
export type { Register } from "../../src/index.js";

type Api = {
  functions: {
    listTodos: { args: { limit?: number }; result: { rows: { id: string; title: string }[] } };
    createTodo: { args: { title: string }; result: { id: string } };
  };
  entities: { Todo: { title: string; done: boolean } };
};

declare module "../../src/index.js" {
  interface Register {
    api: Api;
  }
}

export function useTyped(): string {
  const { rows } = useQuery("Todo", { where: { done: false }, orderBy: "-title" });
  const title: string = rows[0]?.title ?? "";
  const { value } = useLiveQuery("listTodos", { limit: 5 });
  const count: number | undefined = value?.rows.length;
  const [create] = useMutation("createTodo");
  void create({ title: "Milk" }).then((created) => created.id);
  return `${title}${count}`;
}

export function useRefused(): void {
  // @ts-expect-error: no such entity
  useQuery("Nope");
  // @ts-expect-error: Todo has no field color
  useQuery("Todo", { where: { color: "red" } });
  const { rows } = useQuery("Todo");
  // @ts-expect-error: rows have no field color
  void rows[0]?.color;
  // @ts-expect-error: no such function
  useLiveQuery("listNotes");
  // @ts-expect-error: limit is a number
  useLiveQuery("listTodos", { limit: "5" });
  const [create] = useMutation("createTodo");
  // @ts-expect-error: title is required
  void create({});
  // @ts-expect-error: the result has no field title
  void create({ title: "x" }).then((created) => created.title);
  // The escape hatch still checks the name against the registered Api.
  // @ts-expect-error: no such entity
  useQuery<{ id: string }>("Nope");
}
