module github.com/sluicehq/sluice/apps/gateway

go 1.26
