import type { AnchorHTMLAttributes, MouseEvent } from "react";
import { navigate } from "./router.ts";

/** An ordinary link that changes page without reloading (new tabs and modifiers work as usual). */
export function Link({
  href,
  ...props
}: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
      return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={onClick} {...props} />;
}
