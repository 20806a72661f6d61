#!/bin/sh
# Run by the nginx image's entrypoint before it renders the templates (files in
# /docker-entrypoint.d/ run in name order; one that fails stops the container). NGINX_LB (compose:
# LB) names a file in lb/ that the template includes; a typo would otherwise end in an nginx
# "include" error. Here it ends in one line naming the accepted values.
set -eu

lb_dir="${NGINX_LB_DIR:-/etc/nginx/lb}"
lb="${NGINX_LB:-}"

accepted=""
for file in "$lb_dir"/*.conf; do
    [ -f "$file" ] || continue
    name="$(basename "$file" .conf)"
    accepted="${accepted:+$accepted, }$name"
    [ "$lb" = "$name" ] && exit 0
done

echo "$(basename "$0"): LB=$lb is not a balancing method; use one of: ${accepted:-(no lb/*.conf found in $lb_dir)}" >&2
exit 1
