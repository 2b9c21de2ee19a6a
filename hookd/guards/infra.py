"""The databases and infrastructure pack: DROP, TRUNCATE and DELETE without WHERE in a shell client,
terraform destroy and unattended apply, kubectl deletes of namespaces, cloud CLIs deleting buckets,
instances and databases."""

from __future__ import annotations

from hookd.guards.pack import TOO_DEEP, Pack

RULES = {
    "infra.sql-drop": "DROP DATABASE, TABLE or SCHEMA run through a database client",
    "infra.sql-truncate": "TRUNCATE run through a database client",
    "infra.sql-delete-all": "DELETE or UPDATE without WHERE run through a database client",
    "infra.db-flush": "wipes a whole data store: redis FLUSHALL/FLUSHDB, mongo dropDatabase, dropdb",
    "infra.terraform-destroy": "terraform/tofu/terragrunt/pulumi/cdk destroy, or apply -destroy",
    "infra.terraform-auto-approve": "terraform apply -auto-approve, pulumi up --yes: infrastructure changed with no plan reviewed",
    "infra.kubectl-delete-namespace": "kubectl delete of a namespace, or of everything (--all, --all-namespaces)",
    "infra.cloud-delete": "a cloud CLI deleting buckets, instances, databases, clusters or whole projects",
    "infra.docker-volumes": "docker volume removal or system prune with volumes: the data of local databases",
    "infra.too-deep": TOO_DEEP,
}

PACK = Pack("infra", RULES, {})
