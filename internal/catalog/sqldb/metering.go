package sqldb

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func (s *Store) AddTraffic(ctx context.Context, node string, counts map[catalog.MeterKey]catalog.Traffic) error {
	if len(counts) == 0 {
		return nil
	}
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		for k, t := range counts {
			_, err := s.exec(ctx, tx, s.q(`INSERT INTO usage_hourly (tenant, bucket, hour, node, get_requests, put_requests, list_requests, delete_requests, bytes_in, bytes_out)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (tenant, bucket, hour, node) DO UPDATE SET
				get_requests = usage_hourly.get_requests + excluded.get_requests,
				put_requests = usage_hourly.put_requests + excluded.put_requests,
				list_requests = usage_hourly.list_requests + excluded.list_requests,
				delete_requests = usage_hourly.delete_requests + excluded.delete_requests,
				bytes_in = usage_hourly.bytes_in + excluded.bytes_in,
				bytes_out = usage_hourly.bytes_out + excluded.bytes_out`),
				k.Tenant, []byte(k.Bucket), k.Hour.Unix(), node, t.Get, t.Put, t.List, t.Delete, t.BytesIn, t.BytesOut)
			if err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("add traffic", err)
}

func (s *Store) SampleStorage(ctx context.Context, hour time.Time) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		// "WHERE 1 = 1" lets SQLite tell the upsert's ON from a join's.
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO storage_hourly (bucket, hour, tenant, bytes, objects)
			SELECT b.name, ?, b.tenant, COALESCE(SUM(st.bytes), 0), COALESCE(SUM(st.objects), 0)
			FROM buckets b LEFT JOIN bucket_stats st ON st.bucket = b.name WHERE 1 = 1 GROUP BY b.name, b.tenant
			ON CONFLICT (bucket, hour) DO NOTHING`), hour.Unix())
		if err != nil {
			return err
		}
		// The classes counted apart (class_stats); STANDARD's is the
		// bucket's sample less theirs.
		_, err = s.exec(ctx, tx, s.q(`INSERT INTO storage_class_hourly (bucket, hour, class, bytes, objects)
			SELECT bucket, ?, class, SUM(bytes), SUM(objects) FROM class_stats WHERE 1 = 1 GROUP BY bucket, class
			HAVING SUM(bytes) <> 0 OR SUM(objects) <> 0
			ON CONFLICT (bucket, hour, class) DO NOTHING`), hour.Unix())
		return err
	})
	return wrap("sample storage", err)
}

func (s *Store) UsageReport(ctx context.Context, tenant string, from, to time.Time) ([]catalog.UsageRow, error) {
	type key struct {
		bucket string
		hour   int64
	}
	rows := map[key]*catalog.UsageRow{}
	row := func(bucket []byte, hour int64) *catalog.UsageRow {
		k := key{string(bucket), hour}
		if rows[k] == nil {
			rows[k] = &catalog.UsageRow{Bucket: k.bucket, Hour: time.Unix(hour, 0).UTC()}
		}
		return rows[k]
	}
	_, err := queryAll(ctx, s, "usage report", func(sc interface{ Scan(...any) error }) (struct{}, error) {
		var b []byte
		var h int64
		var t catalog.Traffic
		if err := sc.Scan(&b, &h, &t.Get, &t.Put, &t.List, &t.Delete, &t.BytesIn, &t.BytesOut); err != nil {
			return struct{}{}, err
		}
		row(b, h).Traffic.Add(t)
		return struct{}{}, nil
	}, `SELECT bucket, hour, get_requests, put_requests, list_requests, delete_requests, bytes_in, bytes_out
		FROM usage_hourly WHERE tenant = ? AND hour >= ? AND hour < ?`, tenant, from.Unix(), to.Unix())
	if err != nil {
		return nil, err
	}
	_, err = queryAll(ctx, s, "usage report", func(sc interface{ Scan(...any) error }) (struct{}, error) {
		var b []byte
		var h, bytes, objects int64
		if err := sc.Scan(&b, &h, &bytes, &objects); err != nil {
			return struct{}{}, err
		}
		r := row(b, h)
		r.ByteHours, r.Objects = bytes, objects // one sample stands for the hour
		return struct{}{}, nil
	}, `SELECT bucket, hour, bytes, objects FROM storage_hourly WHERE tenant = ? AND hour >= ? AND hour < ?`, tenant, from.Unix(), to.Unix())
	if err != nil {
		return nil, err
	}
	_, err = queryAll(ctx, s, "usage report", func(sc interface{ Scan(...any) error }) (struct{}, error) {
		var b []byte
		var class string
		var h, bytes int64
		if err := sc.Scan(&b, &h, &class, &bytes); err != nil {
			return struct{}{}, err
		}
		r := row(b, h)
		if r.ClassByteHours == nil {
			r.ClassByteHours = map[string]int64{}
		}
		r.ClassByteHours[class] = bytes
		return struct{}{}, nil
	}, `SELECT c.bucket, c.hour, c.class, c.bytes FROM storage_class_hourly c JOIN storage_hourly h ON h.bucket = c.bucket AND h.hour = c.hour
		WHERE h.tenant = ? AND c.hour >= ? AND c.hour < ?`, tenant, from.Unix(), to.Unix())
	if err != nil {
		return nil, err
	}
	out := make([]catalog.UsageRow, 0, len(rows))
	for _, r := range rows {
		if r.ClassByteHours != nil {
			// STANDARD holds what the other classes do not.
			std := r.ByteHours
			for _, v := range r.ClassByteHours {
				std -= v
			}
			if std != 0 {
				r.ClassByteHours[catalog.StandardClass] = std
			}
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Bucket != out[j].Bucket {
			return out[i].Bucket < out[j].Bucket
		}
		return out[i].Hour.Before(out[j].Hour)
	})
	return out, nil
}
