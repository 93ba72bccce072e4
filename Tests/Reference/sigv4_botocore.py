"""Signs requests with botocore's S3 signer (SigV4), the independent reference for Magpie's.

Reads a JSON list of requests from the file its argument names, each
{"method", "host", "bucket", "key", "query": [[name, value]...], "headers": [[name, value]...],
 "body", "accessKeyID", "secretAccessKey",
 "sessionToken" (or null), "region", "time": "YYYYMMDDTHHMMSSZ"},
and prints a JSON list of the headers botocore adds to each: Authorization, X-Amz-Date,
X-Amz-Content-SHA256 and X-Amz-Security-Token where it sets them. The key and the query are
given unencoded: botocore encodes them as its S3 client does (the key with percent_encode, the
query in the signer), so Magpie's encoding is checked too, not only its signing.
"""
import datetime
import json
import sys

import botocore.auth
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.utils import percent_encode


def sign(spec):
    moment = datetime.datetime.strptime(spec["time"], "%Y%m%dT%H%M%SZ")
    botocore.auth.get_current_datetime = lambda: moment
    credentials = Credentials(spec["accessKeyID"], spec["secretAccessKey"], spec.get("sessionToken"))
    url = "http://%s/%s/%s" % (spec["host"], spec["bucket"], percent_encode(spec["key"], safe="/~"))
    request = AWSRequest(
        method=spec["method"], url=url, data=spec["body"].encode("utf-8"), params=[tuple(pair) for pair in spec["query"]]
    )
    for name, value in spec["headers"]:
        request.headers[name] = value
    S3SigV4Auth(credentials, "s3", spec["region"]).add_auth(request)
    wanted = ["Authorization", "X-Amz-Date", "X-Amz-Content-SHA256", "X-Amz-Security-Token"]
    return {name: request.headers[name] for name in wanted if name in request.headers}


with open(sys.argv[1]) as requests:
    print(json.dumps([sign(spec) for spec in json.load(requests)]))
