"""A stand-in for `aws s3api list-objects-v2 --bucket B --prefix P [--query Q] [--output text|json]` over a
directory (STUB_S3/B/KEY, LastModified from the file's mtime), paged and formatted as the AWS CLI does
(awscli/formatter.py, awscli/text.py): pages of 1,000 keys in key order; JSON output is the full result with
--query applied once; text output applies --query to each page (the first page carrying the non-result keys)
and prints each page's result with the CLI's text rules. Needs jmespath, the library the CLI evaluates
--query with."""
import json
import os
import sys
from datetime import datetime, timezone

import jmespath

PAGE_SIZE = 1000


def arg(name, default=None):
    args = sys.argv[1:]
    return args[args.index(name) + 1] if name in args else default


def objects(bucket, prefix):
    root = os.path.join(os.environ["STUB_S3"], bucket)
    found = []
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            key = os.path.relpath(path, root)
            if key.startswith(prefix):
                modified = datetime.fromtimestamp(int(os.stat(path).st_mtime), timezone.utc)
                found.append({"Key": key, "LastModified": modified.isoformat(), "Size": os.stat(path).st_size})
    return sorted(found, key=lambda o: o["Key"])


def text(item, out):
    """awscli/text.py for the shapes a query here yields: scalars, lists of scalars, lists of lists."""
    if isinstance(item, dict):
        raise SystemExit("the stand-in formats no objects as text")
    if isinstance(item, list):
        if not item:
            return
        scalars = [e for e in item if not isinstance(e, (list, dict))]
        if scalars:
            out.write("\t".join(str(e) for e in scalars) + "\n")
        for e in item:
            if isinstance(e, (list, dict)):
                text(e, out)
        return
    out.write(f"{item}\n")


def main():
    if sys.argv[1:3] != ["s3api", "list-objects-v2"]:
        raise SystemExit(f"the stand-in does not know: {' '.join(sys.argv[1:])}")
    bucket, prefix, query = arg("--bucket"), arg("--prefix", ""), arg("--query")
    found = objects(bucket, prefix)
    pages = [found[i : i + PAGE_SIZE] for i in range(0, len(found), PAGE_SIZE)] or [[]]
    head = {"Name": bucket, "Prefix": prefix, "MaxKeys": PAGE_SIZE}
    if arg("--output", "json") == "json":
        full = dict(head, Contents=found) if found else head
        print(json.dumps(jmespath.search(query, full) if query else full, indent=4))
        return
    for i, page in enumerate(pages):
        current = dict(head) if i == 0 else {}
        current["Contents"] = page or None
        current["CommonPrefixes"] = None
        text(jmespath.search(query, current) if query else current, sys.stdout)


main()
