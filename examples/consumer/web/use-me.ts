import type { Me } from "@svc/client";
import { useAuth, useSvcClient } from "@svc/client/react";
import { useCallback, useEffect, useState } from "react";

/** The signed-in user's record (`auth.me()`), read again on sign-in and on `refresh()`. */
export function useMe(): { me: Me | null; refresh(): void } {
  const client = useSvcClient();
  const { userId } = useAuth();
  const [me, setMe] = useState<Me | null>(null);
  const [version, setVersion] = useState(0);
  // Read again when the user changes and when asked (`version`).
  useEffect(() => {
    let current = true;
    client.auth.me().then(
      (answer) => current && setMe(answer),
      () => current && setMe(null),
    );
    return () => {
      current = false;
    };
  }, [client, userId, version]);
  const refresh = useCallback(() => setVersion((value) => value + 1), []);
  return { me, refresh };
}
