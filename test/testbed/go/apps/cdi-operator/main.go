// cdi-operator is the testbed's stand-in for the CDI operator of the seeds: it installs CRDs only once it sees a
// trigger resource, as the real operator installs storageprofiles.cdi.kubevirt.io only after a CDI object exists.
// That is what makes a tier applying a CDI and a StorageProfile together deadlock on its dry-run.
//
// It runs in a pod with its ServiceAccount (in-cluster config, standard library only) and keeps reconciling: a CRD
// deleted while a trigger exists is installed again after DELAY.
//
//	TRIGGER    group/version/plural to watch (default cdi.kubevirt.io/v1beta1/cdis)
//	NAMES      comma-separated names of trigger objects that count (default: any)
//	DELAY      how long after first seeing a trigger to install the CRDs (Go duration, default 3s)
//	CRD_DIR    directory of CRD manifests (YAML or JSON, one per file named <crd name>.yaml), e.g. a ConfigMap volume
//	POLL       poll interval (default 1s)
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const saDir = "/var/run/secrets/kubernetes.io/serviceaccount"

type client struct {
	base string
	http *http.Client
}

func inCluster() (*client, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("KUBERNETES_SERVICE_HOST/PORT not set: not running in a pod")
	}
	ca, err := os.ReadFile(filepath.Join(saDir, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("no certificate in %s/ca.crt", saDir)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return &client{base: "https://" + net.JoinHostPort(host, port), http: &http.Client{Transport: tr, Timeout: 15 * time.Second}}, nil
}

// do sends one request with the (rotating) ServiceAccount token, read fresh each time.
func (c *client) do(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
	token, err := os.ReadFile(filepath.Join(saDir, "token"))
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

type list struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	} `json:"items"`
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func main() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	trigger := strings.Split(env("TRIGGER", "cdi.kubevirt.io/v1beta1/cdis"), "/")
	if len(trigger) != 3 {
		log.Fatalf("TRIGGER=%q: want group/version/plural", os.Getenv("TRIGGER"))
	}
	delay, err := time.ParseDuration(env("DELAY", "3s"))
	if err != nil {
		log.Fatalf("DELAY: %v", err)
	}
	poll, err := time.ParseDuration(env("POLL", "1s"))
	if err != nil {
		log.Fatalf("POLL: %v", err)
	}
	names := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("NAMES"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			names[n] = true
		}
	}
	crdDir := env("CRD_DIR", "/etc/cdi-operator/crds")
	c, err := inCluster()
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	listPath := fmt.Sprintf("/apis/%s/%s/%s", trigger[0], trigger[1], trigger[2])
	log.Printf("watching %s (names: %v), installing the CRDs in %s %s after a trigger appears", listPath, keys(names), crdDir, delay)

	var seen time.Time
	for {
		found, err := triggerExists(ctx, c, listPath, names)
		switch {
		case err != nil:
			log.Printf("listing %s: %v", listPath, err)
		case !found:
			seen = time.Time{}
		case seen.IsZero():
			seen = time.Now()
			log.Printf("trigger seen; installing CRDs in %s", delay)
		case time.Since(seen) >= delay:
			if err := installAll(ctx, c, crdDir); err != nil {
				log.Printf("installing CRDs: %v", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(poll):
		}
	}
}

func keys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

func triggerExists(ctx context.Context, c *client, path string, names map[string]bool) (bool, error) {
	code, body, err := c.do(ctx, http.MethodGet, path, "", nil)
	if err != nil {
		return false, err
	}
	if code == http.StatusNotFound {
		return false, nil // the trigger's own CRD is not installed yet
	}
	if code != http.StatusOK {
		return false, fmt.Errorf("HTTP %d: %s", code, strings.TrimSpace(string(body)))
	}
	var l list
	if err := json.Unmarshal(body, &l); err != nil {
		return false, err
	}
	for _, i := range l.Items {
		if len(names) == 0 || names[i.Metadata.Name] {
			return true, nil
		}
	}
	return false, nil
}

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"

// installAll server-side applies each CRD that does not exist yet (the API server takes YAML for apply patches).
func installAll(ctx context.Context, c *client, dir string) error {
	files, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		ext := filepath.Ext(f.Name())
		if f.IsDir() || strings.HasPrefix(f.Name(), ".") || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		name := strings.TrimSuffix(f.Name(), ext)
		code, _, err := c.do(ctx, http.MethodGet, crdPath+name, "", nil)
		if err != nil {
			return err
		}
		if code == http.StatusOK {
			continue
		}
		manifest, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			return err
		}
		code, body, err := c.do(ctx, http.MethodPatch, crdPath+name+"?fieldManager=cdi-operator&force=true", "application/apply-patch+yaml", manifest)
		if err != nil {
			return err
		}
		if code >= 300 {
			return fmt.Errorf("apply CRD %s: HTTP %d: %s", name, code, strings.TrimSpace(string(body)))
		}
		log.Printf("installed CRD %s", name)
	}
	return nil
}
