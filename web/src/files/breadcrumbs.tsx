/** Where the files panel is: the session directory, then each folder down to the place shown. */

export function Breadcrumbs(props: { path: string; onOpen: (directory: string) => void }) {
  const parts = props.path === "" ? [] : props.path.split("/");
  return (
    <nav class="breadcrumbs" aria-label="Where in the session directory">
      <ol>
        <li>
          <button
            type="button"
            onClick={() => props.onOpen("")}
            aria-current={parts.length === 0 ? "location" : undefined}
          >
            Session directory
          </button>
        </li>
        {parts.map((name, index) => {
          const path = parts.slice(0, index + 1).join("/");
          const last = index === parts.length - 1;
          return (
            <li key={path}>
              <button
                type="button"
                onClick={() => props.onOpen(path)}
                aria-current={last ? "location" : undefined}
              >
                {name}
              </button>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
