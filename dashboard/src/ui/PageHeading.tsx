import { type ReactNode, useEffect, useRef } from "react";
import { takeHeadingFocus } from "../routing/router.ts";

const SITE_NAME = "Agent rental marketplace";

/**
 * The page's main heading: it names the document, and takes the focus when the page was navigated
 * to, so a screen reader announces the new page and the keyboard starts from its top.
 */
export function PageHeading({
  id,
  title,
  children,
}: {
  id: string;
  title: string;
  children?: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${SITE_NAME}`;
  }, [title]);
  useEffect(() => {
    if (takeHeadingFocus()) heading.current?.focus();
  }, []);
  return (
    <h1 id={id} ref={heading} tabIndex={-1}>
      {children ?? title}
    </h1>
  );
}
