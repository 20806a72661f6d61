#!/bin/sh
# Renders /etc/nginx/templates/**/*.template into /etc/nginx/conf.d/ with envsubst, substituting
# only variables defined in the environment (nginx's own $host and the like stay as they are).
set -e
template_dir="${NGINX_ENVSUBST_TEMPLATE_DIR:-/etc/nginx/templates}"
suffix="${NGINX_ENVSUBST_TEMPLATE_SUFFIX:-.template}"
output_dir="${NGINX_ENVSUBST_OUTPUT_DIR:-/etc/nginx/conf.d}"
filter="${NGINX_ENVSUBST_FILTER:-}"
[ -d "$template_dir" ] || exit 0
if [ ! -w "$output_dir" ]; then
  echo "$0: ERROR: $output_dir is not writable" >&2
  exit 0
fi
defined=$(printf '${%s} ' $(env | cut -d= -f1 | grep -E "${filter:-.}"))
find "$template_dir" -follow -type f -name "*$suffix" | while read -r template; do
  relative="${template#"$template_dir/"}"
  output="$output_dir/${relative%"$suffix"}"
  mkdir -p "$(dirname "$output")"
  echo "$0: Running envsubst on $template to $output" >&2
  envsubst "$defined" < "$template" > "$output"
done
