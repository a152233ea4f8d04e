import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/** Ids for labels and their controls: one prefix a page, names after it. */
export function controlId(...parts: (string | number)[]): string {
  return parts.map((part) => String(part).replace(/[^A-Za-z0-9_-]/g, "_")).join("--");
}

/** A message under the control the user acted on: read by screen readers with the control. */
export function FieldError({ id, message }: { id: string; message?: string | undefined }) {
  if (!message) return null;
  return (
    <p class="field-error" id={`${id}-error`} role="alert">
      {message}
    </p>
  );
}

/** The attributes that tie a control to its error message. */
export function errorProps(id: string, message: string | undefined) {
  return message ? { "aria-invalid": true, "aria-describedby": `${id}-error` } : {};
}

export function Notice({
  kind,
  children,
  title,
}: {
  kind: "error" | "info" | "success" | "warning";
  children: ComponentChildren;
  title?: string;
}) {
  return (
    <div class={`notice notice-${kind}`} role={kind === "error" ? "alert" : "status"}>
      {title && <strong class="notice-title">{title}</strong>}
      <div class="notice-body">{children}</div>
    </div>
  );
}

/** A long step's lines as they come, with a spinner while it runs. */
export function ProgressLog({ lines, running, label }: { lines: string[]; running: boolean; label: string }) {
  if (lines.length === 0 && !running) return null;
  return (
    <div class="progress" role="status" aria-live="polite" aria-label={label} aria-busy={running}>
      {running && <span class="spinner" aria-hidden="true" />}
      <ol class="progress-lines">
        {lines.map((line, index) => (
          <li key={index} class={index === lines.length - 1 && running ? "current" : ""}>
            {line}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** A unified diff, its lines coloured by what they do. */
export function DiffView({ diff, label }: { diff: string; label: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    <pre class="diff" aria-label={label} tabIndex={0}>
      {lines.map((line, index) => {
        const kind =
          line.startsWith("+++") || line.startsWith("---")
            ? "file"
            : line.startsWith("@@")
              ? "hunk"
              : line.startsWith("+")
                ? "added"
                : line.startsWith("-")
                  ? "removed"
                  : "context";
        return (
          <span key={index} class={`diff-${kind}`}>
            {line}
            {"\n"}
          </span>
        );
      })}
    </pre>
  );
}

/** Text to copy, with a button that copies it. */
export function CopyBlock({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="copy-block">
      <pre aria-label={label} tabIndex={0}>
        {text}
      </pre>
      <button
        type="button"
        class="button small"
        aria-label={`Copy ${label}`}
        onClick={async () => {
          await navigator.clipboard.writeText(text).catch(() => undefined);
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        }}
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  );
}

export function Badge({
  kind,
  children,
}: {
  kind: "ok" | "warn" | "danger" | "muted" | "info";
  children: ComponentChildren;
}) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{title}</h1>
      <div class="page-actions">{children}</div>
    </header>
  );
}
