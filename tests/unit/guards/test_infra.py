"""The infra pack: SQL wherever a client reads it, infrastructure tools, cloud CLIs, docker volumes."""

from __future__ import annotations

import pytest

from .guard import rule, shell


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('psql -c "DROP TABLE users;"', "infra.sql-drop"),
        ("psql --command='drop schema public cascade'", "infra.sql-drop"),
        ('psql app -c "SELECT 1; DROP TABLE audit;"', "infra.sql-drop"),
        ('mysql -e "DROP DATABASE shop"', "infra.sql-drop"),
        ('sqlite3 app.db "DROP TABLE users"', "infra.sql-drop"),
        ('echo "DROP TABLE users;" | psql', "infra.sql-drop"),
        ('psql <<< "DROP TABLE users"', "infra.sql-drop"),
        ("psql app <<'SQL'\nBEGIN;\nDROP TABLE orders;\nCOMMIT;\nSQL", "infra.sql-drop"),
        ("cat <<EOF | mysql shop\nDELETE FROM customers;\nEOF", "infra.sql-delete-all"),
        ('docker exec -it db psql -U postgres -c "DROP DATABASE app"', "infra.sql-drop"),
        ('kubectl exec -it pg-0 -- psql -c "DROP TABLE orders"', "infra.sql-drop"),
        ("dropdb production", "infra.sql-drop"),
        ('psql -c "TRUNCATE orders"', "infra.sql-truncate"),
        ('psql -c "DELETE FROM users"', "infra.sql-delete-all"),
        ('psql -c "UPDATE accounts SET balance = 0"', "infra.sql-delete-all"),
        ("redis-cli -h cache flushall", "infra.db-flush"),
        ('mongosh prod --eval "db.dropDatabase()"', "infra.db-flush"),
        ("terraform destroy", "infra.terraform-destroy"),
        ("terraform -chdir=infra apply -destroy", "infra.terraform-destroy"),
        ("terragrunt run-all destroy", "infra.terraform-destroy"),
        ("npx cdk destroy", "infra.terraform-destroy"),
        ("terraform apply -auto-approve", "infra.terraform-auto-approve"),
        ("pulumi up --yes", "infra.terraform-auto-approve"),
        ("kubectl delete ns staging", "infra.kubectl-delete-namespace"),
        ("kubectl -n prod delete namespace/app", "infra.kubectl-delete-namespace"),
        ("kubectl delete pods --all -A", "infra.kubectl-delete-namespace"),
        ("helm uninstall postgres -n prod", "infra.helm-uninstall"),
        ("aws s3 rb s3://backups --force", "infra.cloud-delete"),
        ("aws --profile prod s3 rm s3://data --recursive", "infra.cloud-delete"),
        ("aws ec2 terminate-instances --instance-ids i-1", "infra.cloud-delete"),
        ("gcloud projects delete my-project", "infra.cloud-delete"),
        ("gsutil -m rm -r gs://bucket", "infra.cloud-delete"),
        ("az group delete --name production --yes", "infra.cloud-delete"),
        ("docker compose down -v", "infra.docker-volumes"),
        ("docker system prune -a --volumes", "infra.docker-volumes"),
    ],
)
def test_destroying_data_and_infrastructure_fires(command: str, expected: str) -> None:
    assert rule(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        'psql -c "SELECT * FROM users"',
        'psql -c "DELETE FROM sessions WHERE expires_at < now()"',
        "psql -c \"SELECT 'DROP TABLE x' AS example\"",
        'psql -c "CREATE TABLE IF NOT EXISTS drop_log (id int)"',
        "psql -c \"INSERT INTO audit (action) VALUES ('truncate requested')\"",
        'grep -rn "DROP TABLE" migrations/',
        'echo "DROP TABLE users;" >> migrations/002.sql',
        'git commit -m "migration: DROP TABLE legacy"',
        "redis-cli DEL session:42",
        "terraform plan -destroy",
        "terraform apply tfplan",
        "pulumi up",
        "kubectl delete pod web-7d9f -n staging",
        "kubectl delete -f k8s/job.yaml",
        "aws s3 rm s3://bucket/tmp/report.csv",
        "aws s3 sync dist/ s3://site --delete",
        "gcloud compute instances list",
        "docker compose down",
        "docker system prune -f",
    ],
)
def test_reading_planning_and_narrow_changes_pass(command: str) -> None:
    assert shell(command) is None
